/**
 * What protects the pages plugin, and only it (both plugins below register inside its
 * scope): security headers with a Content-Security-Policy that allows nothing but the
 * page's own stylesheet (by hash), its inline icon and forms posting back here (one page,
 * the console's list jobs, adds its own script by hash, `pagePolicyWith`); and the
 * page limiter (page-limiter.ts: per address, per /24 or /64, and from everyone, a
 * minute, per instance) so the pages are no free API. A limited request gets the 429
 * page (503 over the global budget) with Retry-After and nothing else: the API's
 * `x-ratelimit-requests-*` headers belong to keys, and pages have none.
 */
import helmet from "@fastify/helmet";
import type { TypedApp } from "../typed-app.js";
import type { PageProblem } from "./error-page.js";
import { STYLE_HASH } from "./layout.js";
import { PageLimiter, type PageLimits, type PageRefusal } from "./page-limiter.js";

const REFUSED_BY: Record<PageRefusal["over"], string> = {
  address: "from your address",
  prefix: "from your network",
  global: "to this server",
};

/** The error the page limiter raises; the pages' error handler renders it as the 429 (503) page. */
export class TooManyPageRequests extends Error implements PageProblem {
  override name = "TooManyPageRequests";
  readonly status: 429 | 503;
  readonly headers: Record<string, string>;

  constructor({ over, retryAfterSeconds }: PageRefusal) {
    super(`Too many page requests ${REFUSED_BY[over]}; try again in ${retryAfterSeconds} seconds.`);
    this.status = over === "global" ? 503 : 429;
    this.headers = { "retry-after": String(retryAfterSeconds) };
  }

  get detail(): string {
    return this.message;
  }
}

/**
 * `same-origin` on every page: a browser then posts a same-origin form with `Origin` set to
 * the page's origin, which the forms' CSRF check requires (under `no-referrer` Chromium
 * posts `Origin: null`), and other sites still learn nothing of the page's address.
 */
export const REFERRER_POLICY = "same-origin";

const CSP_DIRECTIVES = {
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

export async function protectPages(app: TypedApp, limits: PageLimits): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES },
    frameguard: { action: "deny" },
    referrerPolicy: { policy: REFERRER_POLICY },
    // HSTS is the TLS terminator's to send; this server speaks plain HTTP.
    strictTransportSecurity: false,
  });
  const limiter = new PageLimiter(limits);
  app.addHook("onRequest", (request, _reply, done) => {
    const refusal = limiter.take(request.ip);
    done(refusal && new TooManyPageRequests(refusal));
  });
}
