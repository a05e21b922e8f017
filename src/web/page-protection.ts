/**
 * What protects the site, and only it (registered inside the site plugin's scope):
 * the pages' security headers (kit/page-headers.ts) through helmet, and the page
 * limiter (page-limiter.ts: per address, per /24 or /64, and from everyone, a minute,
 * per instance) so the pages are no free API. A limited request gets the 429 page (503
 * over the global budget) with Retry-After and nothing else: the API's
 * `x-ratelimit-requests-*` headers belong to keys, and pages have none.
 */
import helmet from "@fastify/helmet";
import type { TypedApp } from "../http/typed-app.js";
import type { PageProblem } from "../page-kit/error-page.js";
import { CSP_DIRECTIVES, REFERRER_POLICY } from "../page-kit/page-headers.js";
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
