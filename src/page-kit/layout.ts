/**
 * The page kit (docs/architecture.md "The site"): the frame of every HTML page
 * (self-contained: the one inline stylesheet of style.ts, an inline SVG icon, no external
 * fonts, scripts or images; landmarks for assistive technology; readable from 360 px up),
 * the one layout of the signed-in areas (the account's pages and the operator's desk),
 * and the parts pages are made of: `card`, `field`, `form`, `table`, the search form.
 * Everything is `Html` (html.ts): a value from outside is escaped wherever it goes. The
 * stylesheet is allowed by its hash in the Content-Security-Policy (page-headers.ts), so
 * no inline style attribute or script would ever run, but for the one script a page
 * names (`script`) and allows by its hash in its own policy.
 */
import type { FastifyReply } from "fastify";
import { type Html, type HtmlValue, html, trustedHtml } from "./html.js";
import { STYLE } from "./style.js";

/** The tab icon, inline so that the browser asks for no /favicon.ico. */
const ICON =
  "data:image/svg+xml," +
  encodeURIComponent(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f4fbf"/><path d="M7 23V10h3l6 7 6-7h3v13h-3v-8l-6 7-6-7v8z" fill="#fff"/></svg>`,
  );

export const HTML_CONTENT_TYPE = "text/html; charset=utf-8";

/** Sends a page: only `Html` is taken, so nothing reaches a page unescaped. */
export function sendPage(reply: FastifyReply, page: Html, status = 200): FastifyReply {
  return reply.code(status).type(HTML_CONTENT_TYPE).send(page.toString());
}

/** The path of a domain's result page. */
export function domainPath(domain: string): string {
  return `/domain/${encodeURIComponent(domain)}`;
}

/** A list of links to result pages, or `empty` when there are none. */
export function domainLinks(domains: readonly string[], empty: Html, rel?: string): Html {
  if (domains.length === 0) return empty;
  const items = domains.map(
    (domain) => html`<li><a href="${domainPath(domain)}"${rel && html` rel="${rel}"`}>${domain}</a></li>`,
  );
  return html`<ul class="links">${items}</ul>`;
}

/** A titled card: `<section>` labelled by its `<h2>`. */
export function card(id: string, heading: string, body: HtmlValue): Html {
  return html`<section class="card" aria-labelledby="${id}">
<h2 id="${id}">${heading}</h2>
${body}
</section>`;
}

/** A line above the cards saying what was just done (`role="status"`). */
export function statusCard(text: string): Html {
  return html`<p class="card" role="status">${text}</p>`;
}

/** The recently checked domains as links to their pages (nofollow: anyone can add one by checking it). */
export function recentCard(recent: readonly string[]): Html {
  return card(
    "recent-heading",
    "Recently checked",
    domainLinks(recent, html`<p class="muted">No domain has been checked yet.</p>`, "nofollow"),
  );
}

/** The search form: an email address or a domain; the server keeps only the domain (POST, so no address lands in a URL). */
export function searchForm(id: string, value = ""): Html {
  return html`<form class="search" method="post" action="/domain/" role="search">
<label for="${id}">Email address or domain</label>
<input id="${id}" name="q" type="text" inputmode="email" placeholder="example.com" value="${value}" required maxlength="320" autocomplete="off" autocapitalize="off" spellcheck="false">
<button type="submit">Check</button>
</form>`;
}

export interface FieldOptions {
  name: string;
  label: string;
  /** Default `f-<name>`; its error is `<id>-error`, its hint `<id>-hint`. */
  id?: string;
  type?: "text" | "email" | "password" | "search" | "file" | "checkbox";
  /** The value shown (text fields: `value=""` when absent); a checkbox's value when checked. */
  value?: string;
  /** A text field's autocomplete (default `off`). */
  autocomplete?: string;
  /** A file field's accepted types. */
  accept?: string;
  required?: boolean;
  maxlength?: number;
  inputmode?: "numeric" | "email";
  pattern?: string;
  /** Names and codes, not prose: no spelling check, no capitals. */
  verbatim?: boolean;
  /** A `<select>` of these `[value, label]` instead of an input; `value` is the one chosen. */
  options?: readonly (readonly [string, string])[];
  /** Shown under the field, tied to it by `aria-describedby`. */
  error?: string | undefined;
  /** A line after the field (and its error), tied to it by `aria-describedby`. */
  hint?: Html;
}

const TEXT_TYPES = new Set(["text", "email", "password", "search"]);

/** A labelled input (or select) with its error beside it and its hint under it: the one field of every form. */
export function field(options: FieldOptions): Html {
  const { name, label, type = "text", value, error, hint, options: choices } = options;
  const id = options.id ?? `f-${name}`;
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(" ");
  const aria = html`${described && html` aria-describedby="${described}"`}${error && html` aria-invalid="true"`}`;
  const control = choices
    ? html`<select id="${id}" name="${name}"${aria}>${choices.map(
        ([option, text]) =>
          html`<option value="${option}"${option === value && " selected"}>${text}</option>`,
      )}</select>`
    : html`<input id="${id}" name="${name}" type="${type}"${
        TEXT_TYPES.has(type)
          ? html` value="${value ?? ""}" autocomplete="${options.autocomplete ?? "off"}"`
          : value !== undefined && html` value="${value}"`
      }${options.accept && html` accept="${options.accept}"`}${options.required && " required"}${
        options.maxlength !== undefined && html` maxlength="${options.maxlength}"`
      }${options.inputmode && html` inputmode="${options.inputmode}"`}${options.pattern && html` pattern="${options.pattern}"`}${
        options.verbatim && html` spellcheck="false" autocapitalize="none"`
      }${aria}>`;
  return html`<label for="${id}">${label}</label>
${control}${error && html`\n<p class="field-error" id="${id}-error">${error}</p>`}${
  hint && html`\n<p class="hint" id="${id}-hint">${hint}</p>`
}`;
}

/** A hidden field of a form. */
export function hidden(name: string, value: string): Html {
  return html`<input type="hidden" name="${name}" value="${value}">`;
}

export interface FormOptions {
  action: string;
  /** The session's form token; absent: a GET form (a search), which changes nothing, unless `method` says post. */
  csrf?: string | undefined;
  method?: "get" | "post";
  /** The fields, one a line in a stacked form; each with its label. */
  fields: HtmlValue;
  button: string;
  /** `stack` (the default): one field a line; `fields`: side by side; `inline`: one button in a line of text. */
  layout?: "stack" | "fields" | "inline";
  /** The button's class (`act`, `act quiet`) where the layout's default is not meant. */
  buttonClass?: string;
  /** An accessible name for the button where several alike stand side by side. */
  buttonLabel?: string;
  multipart?: boolean;
  role?: "search";
}

/** A form with its token (a POST) or none (a GET), its fields and one button. */
export function form(options: FormOptions): Html {
  const { action, csrf, fields, button, layout = "stack" } = options;
  const method = options.method ?? (csrf === undefined ? "get" : "post");
  const head = html`<form class="${layout}" method="${method}" action="${action}"${
    options.multipart && html` enctype="multipart/form-data"`
  }${options.role && html` role="${options.role}"`}>`;
  const token = csrf !== undefined && hidden("csrf", csrf);
  const submit = html`<button${options.buttonClass && html` class="${options.buttonClass}"`} type="submit"${
    options.buttonLabel && html` aria-label="${options.buttonLabel}"`
  }>${button}</button>`;
  if (layout === "inline") return html`${head}${token}${fields}${submit}</form>`;
  return html`${head}${token && html`\n${token}`}
${fields}
${layout === "fields" ? html`<p>${submit}</p>` : submit}
</form>`;
}

/**
 * A table of cells, scrollable on its own on a narrow screen (a region a keyboard can
 * reach); `empty` when there are no rows. With `rowHeaders`, each row's first cell heads it.
 */
export function table(
  label: string,
  head: readonly string[],
  rows: readonly (readonly HtmlValue[])[],
  empty: string,
  { rowHeaders = false } = {},
): Html {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  const cell = (value: HtmlValue, index: number) =>
    rowHeaders && index === 0 ? html`<th scope="row">${value}</th>` : html`<td>${value}</td>`;
  return html`<div class="table-wrap" role="region" aria-label="${label}, table" tabindex="0"><table><thead><tr>${head.map(
    (text) => html`<th scope="col">${text}</th>`,
  )}</tr></thead><tbody>${rows.map((row) => html`<tr>${row.map(cell)}</tr>`)}</tbody></table></div>`;
}

export interface PageOptions {
  /** Text of `<title>`. */
  title: string;
  /** Text of the meta description. */
  description: string;
  /** What `<main>` holds. */
  main: HtmlValue;
  /** Ask search engines not to index the page (error pages, non-existent domains). */
  noindex?: boolean;
  /** An inline script at the end of the body, this code's own; the page's policy must allow it by its hash. */
  script?: string | undefined;
  /** The links at the right of the header (`wayInLinks`: Sign up, Log in). */
  headerLinks?: Html;
}

/** Who may get an account (SIGNUP); `off` where no account pages are served. */
export type Signup = "off" | "invite" | "open";

/**
 * The way in on public pages (docs/accounts.md "A way in"): `Sign up` (SIGNUP=open) and
 * `Log in` (SIGNUP not off); the same for every visitor, so the page stays cacheable:
 * `/login` sends a person already logged in on to `/account`.
 */
export function wayInLinks(signup: Signup): Html | undefined {
  if (signup === "off") return undefined;
  return html`<nav class="way-in" aria-label="Account"><ul>${
    signup === "open" && html`<li><a href="/signup">Sign up</a></li>`
  }<li><a href="/login">Log in</a></li></ul></nav>`;
}

/**
 * A whole page around `main`: header with the home link, footer, the inline stylesheet.
 * Its meta referrer is `same-origin`, as the header: a browser then posts a form with
 * `Origin` set to the page's origin (a no-referrer POST says `Origin: null`).
 */
export function renderPage({
  title,
  description,
  main,
  noindex = false,
  script,
  headerLinks,
}: PageOptions): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<meta name="description" content="${description}">
${noindex && html`<meta name="robots" content="noindex">\n`}<meta name="referrer" content="same-origin">
<link rel="icon" href="${ICON}">
<style>${trustedHtml(STYLE)}</style>
</head>
<body>
<header class="site"><div class="wrap"><a class="brand" href="/">mail<span>risk</span></a>${headerLinks}</div></header>
<main id="main"><div class="wrap">
${main}
</div></main>
<footer><div class="wrap">mailrisk — email and domain risk checks. <a href="/openapi.json">API description (OpenAPI)</a></div></footer>
${script !== undefined && html`<script>${trustedHtml(script)}</script>\n`}</body>
</html>
`;
}

export interface AreaPageOptions {
  /** The page's heading, and its title before `— <area>`. */
  title: string;
  /** `mailrisk` (the account's pages) or `mailrisk console` (the operator's desk). */
  area: string;
  description: string;
  /** The line under the heading: who is signed in. */
  signedIn: Html;
  /** The navigation's accessible name and its links, in order. */
  navLabel: string;
  links: readonly (readonly [string, string])[];
  /** The link of this page, marked `aria-current`; absent: none marked. */
  current?: string;
  /** After the links, in the navigation (the log-out button). */
  navEnd?: Html;
  main: HtmlValue;
  script?: string | undefined;
}

/** The one layout of a signed-in area: heading, who is signed in, the area's navigation, the cards. */
export function areaPage(options: AreaPageOptions): Html {
  const { title, links, current, navEnd } = options;
  const items = links.map(
    ([href, text]) =>
      html`<li><a href="${href}"${href === current && html` aria-current="page"`}>${text}</a></li>`,
  );
  return renderPage({
    title: `${title} — ${options.area}`,
    description: options.description,
    noindex: true,
    script: options.script,
    main: html`<h1>${title}</h1>
<p class="muted">${options.signedIn}</p>
<nav class="area" aria-label="${options.navLabel}"><ul class="nav">${items}${navEnd && html`<li>${navEnd}</li>`}</ul></nav>
${options.main}`,
  });
}
