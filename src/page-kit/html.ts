/**
 * HTML that cannot carry an unescaped string (docs/architecture.md "The site"): every
 * page is built with the `html` tagged template, which escapes each value that is not
 * already `Html` (text and numbers; in element content and in quoted attribute values
 * alike), renders `Html` as it is, joins arrays of values, and leaves out `null`,
 * `undefined` and `false` (so `${cond && html`…`}` reads as it says). A page is sent only
 * as `Html` (`sendPage`), so a string, however it was made, reaches a page escaped.
 */

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

const SPECIAL = /[&<>"']/;

function escapeText(text: string): string {
  // Most values hold none of the five: the test alone is cheaper than a replace.
  return SPECIAL.test(text) ? text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char) : text;
}

/** Set once by `Html` itself: the one way markup becomes `Html`, private to this module. */
let fromMarkup: (markup: string) => Html;

/** Markup safe to send: made by `html` (or, for this code's own constants, `trustedHtml`). */
export class Html {
  readonly #markup: string;

  private constructor(markup: string) {
    this.#markup = markup;
  }

  static {
    fromMarkup = (markup) => new Html(markup);
  }

  toString(): string {
    return this.#markup;
  }
}

/** What a template may interpolate: text and numbers are escaped, `Html` kept, nothing shown for the rest. */
export type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (typeof value === "string") return escapeText(value);
  if (value instanceof Html) return value.toString();
  if (value === null || value === undefined || value === false) return "";
  if (typeof value === "number") return escapeText(String(value));
  let joined = "";
  for (const item of value) joined += render(item);
  return joined;
}

/** The template: `html\`<p title="${title}">${text}</p>\`` escapes `title` and `text`. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let markup = strings[0] ?? "";
  for (let index = 0; index < values.length; index++) {
    markup += render(values[index]) + (strings[index + 1] ?? "");
  }
  return fromMarkup(markup);
}

/**
 * This code's own markup kept as it is: the stylesheet, a page's script, an SVG a library
 * drew from our own data. Never for a value that came from outside.
 */
export function trustedHtml(markup: string): Html {
  return fromMarkup(markup);
}

/** Values joined by `separator` (a newline unless told), each rendered as `html` would. */
export function joinHtml(values: readonly HtmlValue[], separator: HtmlValue = "\n"): Html {
  return fromMarkup(values.map(render).join(render(separator)));
}
