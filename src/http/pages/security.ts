/**
 * What protects the pages plugin, and only it (both plugins below register inside its
 * scope): security headers with a Content-Security-Policy that allows nothing but the
 * page's own stylesheet (by hash), its inline icon and forms posting back here; and a
 * per-address rate limit (PAGE_RATE_LIMIT a minute, per instance) so the pages are no
 * free API. A limited request gets the 429 page with Retry-After and nothing else: the
 * API's `x-ratelimit-requests-*` headers belong to keys, and pages have none.
 */
import helmet from "@fastify/helmet";
import rateLimit from "@fastify/rate-limit";
import type { TypedApp } from "../route-deps.js";
import type { PageProblem } from "./error-page.js";
import { STYLE_HASH } from "./layout.js";

/** The error the rate limit raises; the pages' error handler renders it as the 429 page. */
export class TooManyPageRequests extends Error implements PageProblem {
  override name = "TooManyPageRequests";
  readonly status = 429;

  constructor(readonly retryAfterSeconds: number) {
    super(`Too many page requests from your address; try again in ${retryAfterSeconds} seconds.`);
  }

  get detail(): string {
    return this.message;
  }
}

const RATE_WINDOW_MS = 60_000;
/** Client addresses remembered per instance (least recently seen forgotten first). */
const RATE_ADDRESSES = 10_000;

const CSP_DIRECTIVES = {
  "default-src": ["'none'"],
  "style-src": [STYLE_HASH],
  "img-src": ["data:"],
  "form-action": ["'self'"],
  "frame-ancestors": ["'none'"],
  "base-uri": ["'none'"],
};

/**
 * The essential headers for a page answered before routing (a URL Fastify cannot
 * decode), where the plugin's hooks do not run.
 */
export const BASIC_PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": Object.entries(CSP_DIRECTIVES)
    .map(([name, values]) => `${name} ${values.join(" ")}`)
    .join("; "),
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

export async function protectPages(app: TypedApp, requestsPerMinute: number): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES },
    frameguard: { action: "deny" },
    referrerPolicy: { policy: "no-referrer" },
    // HSTS is the TLS terminator's to send; this server speaks plain HTTP.
    strictTransportSecurity: false,
  });
  await app.register(rateLimit, {
    max: requestsPerMinute,
    timeWindow: RATE_WINDOW_MS,
    cache: RATE_ADDRESSES,
    addHeadersOnExceeding: {
      "x-ratelimit-limit": false,
      "x-ratelimit-remaining": false,
      "x-ratelimit-reset": false,
    },
    addHeaders: {
      "x-ratelimit-limit": false,
      "x-ratelimit-remaining": false,
      "x-ratelimit-reset": false,
      "retry-after": true,
    },
    errorResponseBuilder: (_request, context) =>
      new TooManyPageRequests(Math.max(1, Math.ceil(context.ttl / 1000))),
  });
}
