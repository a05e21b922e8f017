/**
 * The home page a browser gets on `GET /` (docs/api.md §3.3, §7): a search form, self-contained
 * (no external fonts, scripts or images). Served by the pages plugin (index.ts); the
 * result pages issue fills it out.
 */
import { renderPage } from "./layout.js";

export function renderHomePage(): string {
  return renderPage(
    "mailrisk — email and domain risk check",
    `<h1>mailrisk</h1>
<p>Check whether sign-ups from a domain should be blocked: disposable, parked, invalid or risky.</p>
<form method="get" action="/domain/">
<label for="domain" hidden>Domain</label>
<input id="domain" name="domain" type="text" placeholder="example.com" required maxlength="320" autocomplete="off">
<button type="submit">Check</button>
</form>
<p>API: <code>POST /v2/</code> with <code>Authorization: Bearer KEY</code>, or <code>GET /?email=…</code> with <code>X-Gateway-Key: KEY</code>. See <a href="/openapi.json">openapi.json</a>.</p>`,
  );
}
