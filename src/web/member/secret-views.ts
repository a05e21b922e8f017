/**
 * A secret key shown once (docs/accounts.md "The first key"): the secret with a copy
 * button (widget/copy-secret.js, inline and allowed by its hash; hidden without scripts)
 * and a curl line that uses it, against PUBLIC_URL or `$MAILRISK_URL`.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { packagePath } from "../../package-root.js";
import { type Html, html } from "../../page-kit/html.js";
import { pagePolicyWith } from "../../page-kit/page-headers.js";
import { exampleBaseUrl } from "../public/api-examples.js";

/** The copy script, inline on a page that shows a secret. */
export const COPY_SCRIPT = readFileSync(packagePath("widget", "copy-secret.js"), "utf8");

/** The pages' policy with the copy script allowed by its hash. */
export const COPY_POLICY = pagePolicyWith({
  "script-src": [`'sha256-${createHash("sha256").update(COPY_SCRIPT).digest("base64")}'`],
});

export interface SecretCard {
  /** The `<h2>`'s id and text. */
  id: string;
  heading: string;
  /** The sentence above the secret (text). */
  lead: string;
  secret: string;
  publicUrl: string | null;
}

/** The card: the secret, its copy button, and a curl line using it. */
export function secretCard({ id, heading, lead, secret, publicUrl }: SecretCard): Html {
  const base = exampleBaseUrl(publicUrl);
  const curl = `curl -s "${base}/v2/" -H 'Authorization: Bearer ${secret}' -d email=someone@example.com`;
  const variable =
    !publicUrl && html`<p class="hint">Set <code>MAILRISK_URL</code> to this service's address first.</p>\n`;
  return html`<section class="card" aria-labelledby="${id}">
<h2 id="${id}">${heading}</h2>
<p>${lead}</p>
<code class="secret" id="${id}-secret" data-secret="${secret}">${secret}</code>
<p><button type="button" class="act quiet" data-copy="${id}-secret" hidden>Copy key</button></p>
<p>Try it:</p>
${variable}<pre><code id="${id}-curl">${curl}</code></pre>
<p><button type="button" class="act quiet" data-copy="${id}-curl" hidden>Copy command</button></p>
</section>`;
}
