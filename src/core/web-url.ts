/**
 * The URLs an operator gives the service to call or fetch (webhooks, LIST_SOURCES;
 * docs/security.md, "No credentials in URLs"): http or https, without a user name or
 * password, which `fetch` refuses and a log or listing would show. No refusal repeats a
 * password.
 */

type WebUrlResult = { ok: true; url: URL } | { ok: false; reason: string };

/** An http(s) URL without credentials, or why `text` is none (quoted without its credentials). */
export function parseWebUrl(text: string): WebUrlResult {
  const shown = `"${withoutCredentials(text)}"`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: `${shown} is not a URL` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { ok: false, reason: `${shown} must be http or https` };
  if (url.username !== "" || url.password !== "") {
    return {
      ok: false,
      reason: `${shown} must not carry a user name or password (no URL may hold credentials)`,
    };
  }
  return { ok: true, url };
}

/** `text` with the user name and password of every URL in it shown as `***`: for what was stored before the rule. */
export function withoutCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/gi, "$1***@");
}
