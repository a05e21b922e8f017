/**
 * "Use the API" on the pages: a curl request for each checking route (docs/api.md "Checking routes")
 * with a placeholder key, against PUBLIC_URL, or `$MAILRISK_URL` when it is unset. Never
 * the request's Host header: a page must not show an address the visitor chose.
 */
import { type Html, html } from "../../page-kit/html.js";
import type { Signup } from "../../page-kit/layout.js";

const KEY_PLACEHOLDER = "YOUR_API_KEY";
/** What the examples name without PUBLIC_URL: a shell variable the reader sets. */
const URL_VARIABLE = "$MAILRISK_URL";

/** The base URL of the examples: PUBLIC_URL, or the shell variable. */
export function exampleBaseUrl(publicUrl: string | null): string {
  return publicUrl ?? URL_VARIABLE;
}

/** Where a key comes from, for the reader of `YOUR_API_KEY`. */
const KEY_SOURCE: Record<Signup, Html> = {
  open: html`<p>Replace <code>${KEY_PLACEHOLDER}</code> with a key of yours: <a href="/signup">sign up</a> and your account's first key is shown once; make more on its Keys page (<a href="/login">log in</a>).</p>`,
  invite: html`<p>Replace <code>${KEY_PLACEHOLDER}</code> with a key of yours: this server's operator invites you to an account, whose first key is shown once; make more on its Keys page (<a href="/login">log in</a>).</p>`,
  off: html`<p>Replace <code>${KEY_PLACEHOLDER}</code> with a key this server's operator made for you (<code>mailrisk keys create</code>).</p>`,
};

/** Both routes' curl examples for one domain, as HTML, saying where the key comes from. */
export function renderApiExamples(baseUrl: string, domain: string, signup: Signup): Html {
  const gateway = `curl -s "${baseUrl}/?domain=${domain}" -H 'X-Gateway-Key: ${KEY_PLACEHOLDER}'`;
  const direct = `curl -s "${baseUrl}/v2/" -H 'Authorization: Bearer ${KEY_PLACEHOLDER}' -d domain=${domain}`;
  const variable =
    baseUrl === URL_VARIABLE
      ? html`<p class="hint">Set <code>MAILRISK_URL</code> to this service's address first.</p>\n`
      : undefined;
  return html`${KEY_SOURCE[signup]}
${variable}<p>The simple record, with an <code>X-Gateway-Key</code>:</p>
<pre><code>${gateway}</code></pre>
<p>The full record, with a bearer key:</p>
<pre><code>${direct}</code></pre>
<p class="hint">Every request counts against the key's quota; <a href="/openapi.json">openapi.json</a> describes both routes.</p>`;
}
