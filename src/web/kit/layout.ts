/**
 * The frame of every HTML page (docs/api.md "Result pages"): self-contained (inline CSS, an inline
 * SVG icon, no external fonts, scripts or images), landmarks for assistive technology,
 * readable from 360 px up. Everything interpolated goes through `escapeHtml`; the
 * stylesheet is allowed by its hash in the Content-Security-Policy (security.ts), so
 * no inline style attribute or script would ever run, but for the one script a page
 * names (`script`) and allows by its hash in its own policy.
 */
import { createHash } from "node:crypto";

const STYLE = `
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
html{-webkit-text-size-adjust:100%}
body{margin:0;min-height:100vh;display:flex;flex-direction:column;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:#1a1a1a;background:#f5f6f8}
a{color:#1f4fbf}
a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid #1f4fbf;outline-offset:2px}
.wrap{max-width:60rem;margin:0 auto;padding:0 1rem}
.site{background:#fff;border-bottom:1px solid #d9dce1}
.site .wrap{display:flex;align-items:center;gap:1rem;min-height:3.25rem}
.brand{font-weight:700;font-size:1.15rem;color:#1a1a1a;text-decoration:none}
.brand span{color:#1f4fbf}
.way-in{margin-left:auto}
.way-in ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.4rem 1rem}
.way-in a{font-weight:600}
main{display:block;flex:1 0 auto;padding:1.5rem 0 2rem}
h1{font-size:1.6rem;line-height:1.2;margin:0 0 .5rem;overflow-wrap:anywhere}
h2{font-size:1.05rem;margin:0 0 .75rem}
.card{background:#fff;border:1px solid #d9dce1;border-radius:.6rem;padding:1rem 1.1rem;margin:0 0 1rem;min-width:0}
.lead{font-size:1.05rem;color:#3d4450;margin:0 0 1rem}
form.search{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
form.search label{flex:1 0 100%;font-weight:600}
form.search input{flex:1 1 12rem;min-width:0;font:inherit;padding:.55rem .7rem;border:1px solid #6b7280;border-radius:.4rem;background:#fff;color:#1a1a1a}
form.search button{font:inherit;font-weight:600;padding:.55rem 1.1rem;border:0;border-radius:.4rem;background:#1f4fbf;color:#fff;cursor:pointer}
.hint{font-size:.9rem;color:#4b5260;margin:.5rem 0 0}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88rem}
code{background:#eef0f3;padding:.05rem .3rem;border-radius:.25rem;overflow-wrap:anywhere}
pre{background:#1e2430;color:#f1f3f6;padding:.75rem .9rem;border-radius:.4rem;margin:.4rem 0 1rem;white-space:pre-wrap;overflow-wrap:anywhere}
pre code{background:none;padding:0;color:inherit}
.verdict{border-width:2px}
.verdict.block{border-color:#b3261e}
.verdict.allow{border-color:#1b6e3a}
.eyebrow{margin:0;font-size:.85rem;text-transform:uppercase;letter-spacing:.05em;color:#4b5260}
.decision{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem .9rem;margin:.25rem 0 .75rem}
.badge{display:inline-block;margin:0;font-weight:800;font-size:1.25rem;letter-spacing:.03em;padding:.25rem .9rem;border-radius:.4rem;color:#fff}
.block .badge{background:#b3261e}
.allow .badge{background:#1b6e3a}
.status{margin:0;font-size:1.05rem}
.status strong{font-weight:700}
.risk{display:grid;grid-template-columns:auto 1fr;align-items:center;gap:.4rem .9rem;margin:.5rem 0 0}
.score{margin:0;font-size:1.5rem;font-weight:700;font-variant-numeric:tabular-nums}
.level{display:inline-block;font-size:.8rem;font-weight:700;letter-spacing:.05em;padding:.1rem .5rem;border-radius:1rem;vertical-align:middle}
.level.low{background:#e3f4e8;color:#14532d}
.level.medium{background:#fdf0d5;color:#6b4500}
.level.high{background:#fde4e1;color:#8c1d18}
meter{width:100%;height:1rem}
progress{width:100%;min-width:6rem;height:1rem}
.grid{display:grid;gap:0 1rem}
@media (min-width:48rem){.grid{grid-template-columns:1fr 1fr}h1{font-size:2rem}}
dl{margin:0;display:grid;grid-template-columns:1fr;gap:0 .9rem}
dt{color:#4b5260;font-size:.85rem}
dd{margin:0 0 .5rem;overflow-wrap:anywhere;min-width:0}
@media (min-width:30rem){dl{grid-template-columns:minmax(7rem,auto) 1fr;gap:.35rem .9rem}dt{font-size:inherit}dd{margin:0}}
.flags{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(14.5rem,1fr));gap:.25rem .35rem}
.flags li{display:flex;justify-content:space-between;gap:.5rem;padding:.2rem .55rem;border-radius:.35rem;background:#f3f4f6;color:#4b5260}
.flags li.on{background:#e6edfb;color:#15306e;font-weight:600}
.links{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.4rem}
.links a{display:inline-block;padding:.2rem .6rem;border:1px solid #c7cdd6;border-radius:.8rem;background:#fff;text-decoration:none;overflow-wrap:anywhere}
.links a:hover{border-color:#1f4fbf}
td .links a{white-space:nowrap;overflow-wrap:normal}
.muted{color:#4b5260}
.why{margin:.9rem 0 0;font-size:.95rem}
.evidence{margin:.25rem 0 0;padding:0 0 0 1.2rem}
.evidence li{margin:.15rem 0;overflow-wrap:anywhere}
.evidence .adds{font-weight:700;font-variant-numeric:tabular-nums;white-space:nowrap}
nav.desk ul{list-style:none;margin:0 0 1rem;padding:0;display:flex;flex-wrap:wrap;gap:.4rem}
nav.desk a{display:inline-block;padding:.2rem .7rem;border:1px solid #c7cdd6;border-radius:.8rem;background:#fff;text-decoration:none}
nav.desk a[aria-current]{background:#1f4fbf;border-color:#1f4fbf;color:#fff}
.scroll{overflow-x:auto}
table{width:100%;border-collapse:collapse;font-size:.92rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #d9dce1;vertical-align:top;overflow-wrap:normal;word-break:normal}
th,.state,td code{white-space:nowrap}
form.fields{display:flex;flex-wrap:wrap;gap:.6rem;align-items:flex-end;margin:.5rem 0 0}
form.fields p{display:flex;flex-direction:column;margin:0;flex:1 1 10rem;min-width:0}
form.fields label{font-weight:600;font-size:.9rem}
form.fields input,form.fields select{font:inherit;padding:.45rem .6rem;border:1px solid #6b7280;border-radius:.4rem;background:#fff;color:#1a1a1a;min-width:0}
form.inline{display:inline-block;margin:0 .3rem .3rem 0}
button.act{font:inherit;font-weight:600;padding:.45rem 1rem;border:1px solid #1f4fbf;border-radius:.4rem;background:#1f4fbf;color:#fff;cursor:pointer}
button.act.quiet{background:#fff;color:#1f4fbf}
select:focus-visible{outline:3px solid #1f4fbf;outline-offset:2px}
form.stack{display:grid;gap:.35rem;max-width:28rem;margin:0 0 1rem}
form.stack label{font-weight:600;margin-top:.4rem}
form.stack input,form.stack select{font:inherit;padding:.55rem .7rem;border:1px solid #6b7280;border-radius:.4rem;background:#fff;color:#1a1a1a;min-width:0}
form.stack button,form.inline button{font:inherit;font-weight:600;padding:.5rem 1rem;border:0;border-radius:.4rem;background:#1f4fbf;color:#fff;cursor:pointer;justify-self:start;margin-top:.5rem}
form.inline{display:inline;margin:0}
form.inline button{margin:0;padding:.25rem .7rem;background:#b3261e}
.field-error{color:#b3261e;margin:0;font-size:.95rem}
form.stack fieldset{display:flex;flex-wrap:wrap;gap:.3rem 1rem;align-items:center;border:1px solid #d9dce1;border-radius:.4rem;margin:.4rem 0 0;padding:.3rem .7rem .5rem}
form.stack fieldset legend{font-weight:600;padding:0 .2rem}
form.stack fieldset label{font-weight:400;margin:0}
.nav{list-style:none;margin:0 0 1rem;padding:0;display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #d9dce1;vertical-align:top}
a.button{display:inline-block;font-weight:600;padding:.25rem .7rem;border-radius:.4rem;text-decoration:none;white-space:nowrap;margin:0 .3rem .3rem 0}
a.button.quiet{border:1px solid #1f4fbf;color:#1f4fbf;background:#fff}
a.button.danger,button.danger,form.stack button.danger{border:1px solid #b3261e;color:#fff;background:#b3261e}
.secret{display:block;padding:.5rem .7rem;background:#eef0f3;border-radius:.4rem;overflow-wrap:anywhere;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.chart{width:100%;height:auto;max-height:14rem}
footer{border-top:1px solid #d9dce1;background:#fff;font-size:.9rem;color:#4b5260}
footer .wrap{padding-top:.9rem;padding-bottom:.9rem}
`;

/** For the Content-Security-Policy: the one stylesheet this service ever sends. */
export const STYLE_HASH = `'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`;

/** The tab icon, inline so that the browser asks for no /favicon.ico. */
const ICON =
  "data:image/svg+xml," +
  encodeURIComponent(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f4fbf"/><path d="M7 23V10h3l6 7 6-7h3v13h-3v-8l-6 7-6-7v8z" fill="#fff"/></svg>`,
  );

export const HTML_CONTENT_TYPE = "text/html; charset=utf-8";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/** The path of a domain's result page (an attribute value once escaped). */
export function domainPath(domain: string): string {
  return `/domain/${encodeURIComponent(domain)}`;
}

/** A list of links to result pages, or `empty` (HTML) when there are none. */
export function domainLinks(domains: readonly string[], empty: string, rel = ""): string {
  if (domains.length === 0) return empty;
  const relAttribute = rel ? ` rel="${rel}"` : "";
  const items = domains.map(
    (domain) =>
      `<li><a href="${escapeHtml(domainPath(domain))}"${relAttribute}>${escapeHtml(domain)}</a></li>`,
  );
  return `<ul class="links">${items.join("")}</ul>`;
}

/** A titled card: `<section>` labelled by its `<h2>`; `body` is HTML. */
export function card(id: string, heading: string, body: string): string {
  return `<section class="card" aria-labelledby="${id}">
<h2 id="${id}">${escapeHtml(heading)}</h2>
${body}
</section>`;
}

/** The recently checked domains as links to their pages (nofollow: anyone can add one by checking it). */
export function recentCard(recent: readonly string[]): string {
  return card(
    "recent-heading",
    "Recently checked",
    domainLinks(recent, '<p class="muted">No domain has been checked yet.</p>', "nofollow"),
  );
}

/** The search form: an email address or a domain; the server keeps only the domain (POST, so no address lands in a URL). */
export function searchForm(id: string, value = ""): string {
  return `<form class="search" method="post" action="/domain/" role="search">
<label for="${id}">Email address or domain</label>
<input id="${id}" name="q" type="text" inputmode="email" placeholder="example.com" value="${escapeHtml(value)}" required maxlength="320" autocomplete="off" autocapitalize="off" spellcheck="false">
<button type="submit">Check</button>
</form>`;
}

export interface PageOptions {
  /** Text of `<title>`; escaped here. */
  title: string;
  /** Text of the meta description; escaped here. */
  description: string;
  /** HTML of `<main>`, built by the caller with `escapeHtml`. */
  main: string;
  /** Ask search engines not to index the page (error pages, non-existent domains). */
  noindex?: boolean;
  /**
   * The meta referrer policy; `same-origin` (the default, as the header) lets a browser
   * post a form with `Origin` set to the page's origin (a no-referrer POST says `Origin: null`).
   */
  referrer?: "no-referrer" | "same-origin";
  /** An inline script at the end of the body; the page's policy must allow it by its hash. */
  script?: string;
  /** HTML of the links at the right of the header (`wayInLinks`: Sign up, Log in). */
  headerLinks?: string;
}

/** Who may get an account (SIGNUP); `off` where no account pages are served. */
export type Signup = "off" | "invite" | "open";

/**
 * The way in on public pages (docs/accounts.md "A way in"): `Sign up` (SIGNUP=open) and
 * `Log in` (SIGNUP not off); the same for every visitor, so the page stays cacheable:
 * `/login` sends a person already logged in on to `/account`.
 */
export function wayInLinks(signup: Signup): string {
  if (signup === "off") return "";
  const links = [
    ...(signup === "open" ? ['<li><a href="/signup">Sign up</a></li>'] : []),
    '<li><a href="/login">Log in</a></li>',
  ];
  return `<nav class="way-in" aria-label="Account"><ul>${links.join("")}</ul></nav>`;
}

/** A whole page around `main`: header with the home link, footer, the inline stylesheet. */
export function renderPage({
  title,
  description,
  main,
  noindex = false,
  referrer = "same-origin",
  script,
  headerLinks = "",
}: PageOptions): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<meta name="description" content="${escapeHtml(description)}">
${noindex ? '<meta name="robots" content="noindex">\n' : ""}<meta name="referrer" content="${referrer}">
<link rel="icon" href="${escapeHtml(ICON)}">
<style>${STYLE}</style>
</head>
<body>
<header class="site"><div class="wrap"><a class="brand" href="/">mail<span>risk</span></a>${headerLinks}</div></header>
<main id="main"><div class="wrap">
${main}
</div></main>
<footer><div class="wrap">mailrisk — email and domain risk checks. <a href="/openapi.json">API description (OpenAPI)</a></div></footer>
${script === undefined ? "" : `<script>${script}</script>\n`}</body>
</html>
`;
}
