/**
 * Publishable (`mrp_`) keys over HTTP (docs/security.md, "Publishable keys"). Told by
 * their prefix before any look-up, so a route that does not take them refuses them (403
 * `publishable_key_not_allowed`) without counting anything. On the two checking routes
 * that take them (`GET /`, `POST /v2/`), the request's `Origin` must be one of the key's
 * (403 `origin_not_allowed`) and the visitor within PUBLISHABLE_RATE_LIMIT (429
 * `rate_limited`) before the quota counts; from then on the answer carries CORS headers.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { FastifyRequest, onRequestHookHandler } from "fastify";
import { isPublishableSecret } from "../core/key-formats.js";
import type { AuthenticatedKey } from "../store/index.js";
import { subscriberOf } from "./client-networks.js";
import { requestOrigin } from "./cors.js";
import { readCredentials } from "./credentials.js";
import { HttpProblem } from "./http-problem.js";
import { WindowLimiter } from "./window-limiter.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** A checking route that takes publishable keys (from their origins only). */
    publishable?: boolean;
  }
}

export function publishableKeyNotAllowed(): HttpProblem {
  return new HttpProblem(
    "publishable_key_not_allowed",
    "A publishable (mrp_) key works only on GET / and POST /v2/ from its origins; use a secret key on a server.",
  );
}

/** Whether any of a key header's candidate secrets is a publishable key's. */
export function namesPublishableKey(candidates: readonly string[]): boolean {
  return candidates.some(isPublishableSecret);
}

/** Whether the request carries a publishable key in `X-Gateway-Key` or `Authorization: Bearer`. */
export function carriesPublishableKey(headers: IncomingHttpHeaders): boolean {
  return (["gateway", "bearer"] as const).some((scheme) => {
    const credentials = readCredentials(scheme, headers);
    return credentials.kind === "present" && namesPublishableKey(credentials.candidates);
  });
}

/** An `onRequest` hook of routes taking other credentials (admin, metrics): 403 for a publishable key. */
export const refusePublishableKey: onRequestHookHandler = (request, _reply, done) => {
  done(carriesPublishableKey(request.headers) ? publishableKeyNotAllowed() : undefined);
};

/** Visitors (key and client address) counted per process; an entry is about a hundred bytes. */
export const VISITORS_REMEMBERED = 100_000;

/** PUBLISHABLE_RATE_LIMIT's counts: requests per minute per visitor, on the app's clock. */
export function visitorLimiter(perMinute: number, clock: () => Date): WindowLimiter {
  return new WindowLimiter({
    limit: perMinute,
    maxClients: VISITORS_REMEMBERED,
    now: () => clock().getTime(),
  });
}

/**
 * Admits a request of a live publishable key: its origin (403), then its visitor's limit
 * (429); once the origin is the key's, the answer (a 429 too) carries the CORS headers.
 */
export function admitPublishable(
  request: FastifyRequest,
  key: AuthenticatedKey,
  visitors: WindowLimiter,
): void {
  const header = request.headers.origin;
  // A browser sends the origin in normal form: the exact match spares parsing it as a URL.
  const origin = typeof header === "string" && key.origins.includes(header) ? header : requestOrigin(header);
  if (origin === undefined || !key.origins.includes(origin)) {
    throw new HttpProblem(
      "origin_not_allowed",
      origin === undefined
        ? "A publishable key is accepted only from a browser page of one of its origins; this request names no Origin."
        : `A publishable key is accepted only from a page of one of its origins; ${origin} is not one of them.`,
    );
  }
  request.corsOrigin = origin;
  const visitor = `${key.id} ${subscriberOf(request.ip)}`;
  const wait = visitors.lockedSeconds(visitor) || visitors.count(visitor);
  if (wait > 0) {
    throw new HttpProblem(
      "rate_limited",
      `Too many requests from this address with this key; try again in ${wait} seconds.`,
      { "retry-after": String(wait) },
    );
  }
}
