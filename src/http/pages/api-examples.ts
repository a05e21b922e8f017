/**
 * "Use the API" on the pages: a curl request for each checking route (docs/api.md §3.1)
 * against the address the browser used, with a placeholder key.
 */
import type { FastifyRequest } from "fastify";
import { escapeHtml } from "./layout.js";

const KEY_PLACEHOLDER = "YOUR_API_KEY";
/** What a Host header may hold to be shown in an example: a name or address and a port. */
const HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** The base URL the browser used, when its Host header is a plain host; else a stand-in. */
export function baseUrlOf(request: FastifyRequest): string {
  return HOST.test(request.host) ? `${request.protocol}://${request.host}` : "http://localhost:8080";
}

/** Both routes' curl examples for one domain, as HTML. */
export function renderApiExamples(baseUrl: string, domain: string): string {
  const gateway = `curl -s '${baseUrl}/?domain=${domain}' -H 'X-Gateway-Key: ${KEY_PLACEHOLDER}'`;
  const direct = `curl -s ${baseUrl}/v2/ -H 'Authorization: Bearer ${KEY_PLACEHOLDER}' -d domain=${domain}`;
  return `<p>The simple record, with an <code>X-Gateway-Key</code>:</p>
<pre><code>${escapeHtml(gateway)}</code></pre>
<p>The full record, with a bearer key:</p>
<pre><code>${escapeHtml(direct)}</code></pre>
<p class="hint">Every request counts against the key's quota; <a href="/openapi.json">openapi.json</a> describes both routes.</p>`;
}
