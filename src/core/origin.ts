/**
 * Web origins (RFC 6454) as publishable keys name them (docs/security.md, "Publishable
 * keys"): exactly `scheme://host[:port]`, http or https, compared after normalisation
 * (lower-case scheme and host, IDN as A-labels, the default port dropped), so that what
 * an operator typed matches what a browser sends in its `Origin` header.
 */

export type OriginResult = { ok: true; origin: string } | { ok: false; reason: string };

/** Longer than any origin a browser sends: a host of 253 characters, a scheme and a port. */
export const MAX_ORIGIN_LENGTH = 300;

/** scheme://authority with at most a bare trailing slash: no path, query or fragment. */
const ORIGIN_SHAPE = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+\/?$/i;

/** An origin in its normal form, or why the text is none. */
export function parseOrigin(text: string): OriginResult {
  const trimmed = text.trim();
  const refuse = (why: string): OriginResult => ({ ok: false, reason: `"${trimmed}" ${why}` });
  if (trimmed.includes("*"))
    return refuse("has a wildcard; name each origin exactly, e.g. https://shop.example");
  if (trimmed.length > MAX_ORIGIN_LENGTH) return refuse(`is longer than ${MAX_ORIGIN_LENGTH} characters`);
  if (!ORIGIN_SHAPE.test(trimmed)) {
    return refuse("is not an origin: write scheme://host[:port], without a path, query or fragment");
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return refuse("is not a valid URL origin");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return refuse("must use http or https");
  if (url.username !== "" || url.password !== "") return refuse("must not carry a user name or password");
  return { ok: true, origin: url.origin };
}
