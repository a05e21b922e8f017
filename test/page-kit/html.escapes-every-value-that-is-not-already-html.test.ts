import { describe, expect, it } from "vitest";
import { Html, type HtmlValue, html, joinHtml, trustedHtml } from "../../src/page-kit/html.js";
import { field, form, renderPage } from "../../src/page-kit/layout.js";

const HOSTILE = `<script>alert("x")</script> & 'more'`;
const ESCAPED = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;more&#39;";

describe("the html template", () => {
  it("escapes a string in text and in a quoted attribute", () => {
    const made = String(html`<p title="${HOSTILE}">${HOSTILE}</p>`);
    expect(made).toBe(`<p title="${ESCAPED}">${ESCAPED}</p>`);
    expect(made).not.toContain("<script>");
  });

  it("cannot be left by a quote in an attribute", () => {
    const made = String(html`<a href="${'" onclick="steal()'}">x</a>`);
    expect(made).toBe('<a href="&quot; onclick=&quot;steal()">x</a>');
  });

  it("keeps Html as it is, once: no double escaping", () => {
    const inner = html`<em>${"a & b"}</em>`;
    expect(String(html`<p>${inner}</p>`)).toBe("<p><em>a &amp; b</em></p>");
    expect(String(html`<div>${html`<p>${inner}</p>`}</div>`)).toBe("<div><p><em>a &amp; b</em></p></div>");
  });

  it("joins arrays, escapes numbers and shows nothing for null, undefined and false", () => {
    const items: HtmlValue[] = ["<a>", html`<b>`, 3, null, undefined, false];
    expect(String(html`<ul>${items}</ul>`)).toBe("<ul>&lt;a&gt;<b>3</ul>");
    expect(String(html`${[["<", html`<i>`], [1.5]]}`)).toBe("&lt;<i>1.5");
    expect(String(joinHtml(["<x>", html`<y>`], html`<br>`))).toBe("&lt;x&gt;<br><y>");
  });

  it("makes Html only through the template or trustedHtml: a string is not Html (npm run typecheck holds it)", () => {
    expect(html`x`).toBeInstanceOf(Html);
    expect(trustedHtml("<style>a{}</style>")).toBeInstanceOf(Html);
    // @ts-expect-error: a string is not Html, so it cannot be sent as a page.
    const page: Html = "<b>";
    expect(page instanceof Html).toBe(false);
    // @ts-expect-error: the constructor is private; a page cannot wrap a string by hand.
    const wrap = (text: string) => new Html(text);
    expect(typeof wrap).toBe("function");
    expect(String(html`${page}`)).toBe("&lt;b&gt;");
  });
});

describe("the page kit escapes what it is given", () => {
  it("in a field's label, value and error, a form's action and a page's title", () => {
    const made = String(
      renderPage({
        title: HOSTILE,
        description: HOSTILE,
        main: form({
          action: `/x?${HOSTILE}`,
          csrf: HOSTILE,
          fields: field({ name: "q", label: HOSTILE, value: HOSTILE, error: HOSTILE }),
          button: HOSTILE,
        }),
      }),
    );
    expect(made).not.toContain("<script>alert");
    expect(made).toContain(`<title>${ESCAPED}</title>`);
    expect(made).toContain(`<label for="f-q">${ESCAPED}</label>`);
    expect(made).toContain(`value="${ESCAPED}"`);
    expect(made).toContain(`<p class="field-error" id="f-q-error">${ESCAPED}</p>`);
    expect(made).toContain(`action="/x?${ESCAPED}"`);
  });
});
