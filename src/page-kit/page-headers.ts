/**
 * The security headers of every page (docs/security.md): a Content-Security-Policy that
 * allows nothing but the page's own stylesheet (by hash), its inline icon and forms
 * posting back here (a page with a script of its own adds it by hash, `pagePolicyWith`),
 * no framing, and a referrer policy under which a browser posts a form with its page's
 * `Origin`. The site sends them through helmet (page-protection.ts); an answer given
 * outside it (the HTML error page of the API's errors) sends `BASIC_PAGE_HEADERS`.
 */
import { STYLE_HASH } from "./style.js";

/**
 * `same-origin` on every page: a browser then posts a same-origin form with `Origin` set to
 * the page's origin, which the forms' CSRF check requires (under `no-referrer` Chromium
 * posts `Origin: null`), and other sites still learn nothing of the page's address.
 */
export const REFERRER_POLICY = "same-origin";

export const CSP_DIRECTIVES = {
  "default-src": ["'none'"],
  "style-src": [STYLE_HASH],
  "img-src": ["data:"],
  "form-action": ["'self'"],
  "frame-ancestors": ["'none'"],
  "base-uri": ["'none'"],
};

function policyText(directives: Record<string, string[]>): string {
  return Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(" ")}`)
    .join("; ");
}

/**
 * The pages' Content-Security-Policy with more sources for one page (the list jobs
 * page: its own script by hash, and its progress stream from this server).
 */
export function pagePolicyWith(more: Record<string, string[]>): string {
  return policyText({ ...CSP_DIRECTIVES, ...more });
}

/**
 * The essential headers for an error page answered where the plugin's hooks do not run
 * (before routing, or by an API route to a browser); never kept by a cache.
 */
export const BASIC_PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": policyText(CSP_DIRECTIVES),
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": REFERRER_POLICY,
  "cache-control": "no-store",
};
