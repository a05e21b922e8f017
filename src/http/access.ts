/**
 * Access to the checking routes: authentication (401), then quota (429), in the
 * checking plugin's `onRequest` hook so they come before anything about the body
 * (400/413/415), as docs/api.md "Routes" orders them. Each route's config names where its key
 * travels (`credentials`) and how many units a request costs (`units`, default 1). A
 * route whose cost is known only from its body (`POST /v2/bulk`: one unit per item)
 * names it as a function of the request: the key is still checked here (401, counting
 * nothing), and the units are counted by `countUnitsOfBody` once the body is read and
 * valid, so a bad body is refused (400/413/415) before the quota (429); the bulk gate
 * (429/503) comes between this hook and the body (routes/bulk-check.ts). A publishable
 * (`mrp_`) key is refused (403) on a route whose config does not name `publishable`; on
 * one that does, its origin (403) and its visitor's limit (429) come before the quota
 * (publishable-keys.ts).
 * `onSend` puts the rate-limit headers on every response of a checking path and gives
 * the counted units back when the answer is a 5xx. Store failures are not caught here:
 * the error handler tells an unreachable database (503) from anything else (500).
 */
import type {
  FastifyReply,
  FastifyRequest,
  onRequestAsyncHookHandler,
  onSendHookHandler,
  preHandlerAsyncHookHandler,
  RouteOptions,
} from "fastify";
import { type HashedSecret, hashedSecret, isPublishableSecret } from "../core/key-formats.js";
import { MAX_QUOTA } from "../core/plan-rules.js";
import { formatTimestamp } from "../core/record.js";
import type { AuthenticatedKey, QuotaState, UsageRepository } from "../store/index.js";
import { type CredentialScheme, readCredentials } from "./credentials.js";
import { HttpProblem } from "./http-problem.js";
import { admitPublishable, publishableKeyNotAllowed } from "./publishable-keys.js";
import type { WindowLimiter } from "./window-limiter.js";

/** What the access hook learnt about the caller of a checking route. */
export interface Caller {
  key: AuthenticatedKey;
  quota: QuotaState;
  now: Date;
  /** Units this request counted (or asked for, when refused). */
  units: number;
  /** The secret that named the key, hashed (counted later for a route that counts by its body). */
  secret: HashedSecret;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the access hook once the key is known and counted (or refused with 429). */
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** A checking route: where its key travels (docs/api.md "Routes"). */
    credentials?: CredentialScheme;
    /**
     * Units of quota one request of the route costs; default 1; 0 counts nothing (`GET /v2/usage`);
     * a function of the validated request: counted by `countUnitsOfBody` (`POST /v2/bulk`).
     */
    units?: number | ((request: FastifyRequest) => number);
    /** A route that counts nothing but is refused (429) once the quota is used up (`POST /v2/reports`). */
    needsQuotaLeft?: boolean;
  }
}

/**
 * The part of the usage repository the checking routes use (publishable keys: `findKey`,
 * `isPublishableOrigin`; the fast path: `rememberedKey`, `countRemembered`).
 */
export type QuotaGate = Pick<
  UsageRepository,
  | "authorize"
  | "refund"
  | "findKey"
  | "rememberedKey"
  | "countRemembered"
  | "isPublishableOrigin"
  | "authorizeKey"
>;

export interface AccessDeps {
  usage: QuotaGate;
  clock: () => Date;
  /** PUBLISHABLE_RATE_LIMIT's counts of this process. */
  visitors: WindowLimiter;
}

const BEARER_CHALLENGE = 'Bearer realm="mailrisk"';

type Unauthorized = "missing_api_key" | "wrong_auth_scheme" | "invalid_api_key";

/** What a 401 says: which part of the request is wrong, and where the key goes on this route. */
function unauthorizedDetail(scheme: CredentialScheme, code: Unauthorized, request: FastifyRequest): string {
  if (scheme === "gateway") {
    if (code === "invalid_api_key") return "The API key in the X-Gateway-Key header is incorrect or revoked.";
    const elsewhere = request.headers.authorization ? " (this route does not read Authorization)" : "";
    return `Send your API key in an X-Gateway-Key header${elsewhere}.`;
  }
  if (code === "wrong_auth_scheme") {
    return "The Authorization header does not use the Bearer scheme; send Authorization: Bearer <API key>.";
  }
  if (code === "invalid_api_key")
    return "The API key in the Authorization: Bearer header is incorrect or revoked.";
  const elsewhere = request.headers["x-gateway-key"] ? " (this route does not read X-Gateway-Key)" : "";
  return `Send your API key in an Authorization: Bearer header${elsewhere}.`;
}

function unauthorized(scheme: CredentialScheme, code: Unauthorized, request: FastifyRequest): HttpProblem {
  const headers: Record<string, string> =
    scheme === "bearer"
      ? {
          "www-authenticate":
            code === "invalid_api_key" ? `${BEARER_CHALLENGE}, error="invalid_token"` : BEARER_CHALLENGE,
        }
      : {};
  return new HttpProblem(code, unauthorizedDetail(scheme, code, request), headers);
}

function secondsUntil(when: Date, now: Date): number {
  return Math.max(0, Math.ceil((when.getTime() - now.getTime()) / 1000));
}

/**
 * The caller named by the first candidate secret (plain, or base64-decoded) of a live key;
 * that one is counted. Each is hashed when its turn comes (most requests need the first).
 */
async function authorize(
  usage: QuotaGate,
  candidates: readonly (string | HashedSecret)[],
  now: Date,
  units: number,
): Promise<Caller | undefined> {
  for (const candidate of candidates) {
    const secret = typeof candidate === "string" ? hashedSecret(candidate) : candidate;
    const authorization = await usage.authorize(secret, now, units);
    if (authorization) return { key: authorization.key, quota: authorization.quota, now, units, secret };
  }
  return undefined;
}

/** 429 `quota_exceeded`: what is left of the quota, and when it resets. */
export function quotaExceeded(quota: QuotaState, now: Date, units: number): HttpProblem {
  const retryAfter = { "retry-after": String(secondsUntil(quota.resetAt, now)) };
  const resets = `it resets at ${formatTimestamp(quota.resetAt)}`;
  if (units <= 1) {
    return new HttpProblem(
      "quota_exceeded",
      `The quota of ${quota.limit} requests per period is used up; ${resets}.`,
      retryAfter,
    );
  }
  return new HttpProblem(
    "quota_exceeded",
    `This request needs ${units} units of quota and ${quota.remaining ?? 0} are left of ${quota.limit} per period; nothing was counted; ${resets}.`,
    retryAfter,
  );
}

/**
 * The `onRequest` hook of one checking route, bound to the route's config (read once,
 * not per request): 401 or 429, or lets the request on.
 */
export function accessHook(deps: AccessDeps, route: RouteOptions): onRequestAsyncHookHandler {
  const {
    credentials: scheme,
    units: cost = 1,
    publishable: takesPublishable = false,
    needsQuotaLeft = false,
  } = route.config ?? {};
  const units = typeof cost === "function" ? 0 : cost;
  if (!scheme) throw new Error(`checking route ${route.method} ${route.url} names no credentials`);
  return async (request) => {
    const credentials = readCredentials(scheme, request.headers);
    if (credentials.kind === "missing") throw unauthorized(scheme, "missing_api_key", request);
    if (credentials.kind === "wrong_scheme") throw unauthorized(scheme, "wrong_auth_scheme", request);
    if (credentials.kind === "malformed") throw unauthorized(scheme, "invalid_api_key", request);
    const now = deps.clock();
    let candidates: readonly (string | HashedSecret)[] = credentials.candidates;
    const publishable = credentials.candidates.find(isPublishableSecret);
    if (publishable !== undefined) {
      if (!takesPublishable) throw publishableKeyNotAllowed();
      const hashed = hashedSecret(publishable);
      const key = await deps.usage.findKey(hashed, now);
      if (!key) throw unauthorized(scheme, "invalid_api_key", request);
      admitPublishable(request, key, deps.visitors);
      candidates = [hashed];
    }
    const caller = await authorize(deps.usage, candidates, now, units);
    if (!caller) throw unauthorized(scheme, "invalid_api_key", request);
    request.caller = caller;
    if (!caller.quota.allowed || (needsQuotaLeft && caller.quota.remaining === 0)) {
      throw quotaExceeded(caller.quota, now, units);
    }
  };
}

/**
 * Counts `units` for the key the access hook found, all or nothing; 429 (with the units
 * really left in the headers) when fewer are left, 401 when the key was revoked meanwhile.
 */
export async function countUnits(
  deps: AccessDeps,
  request: FastifyRequest,
  units: number,
): Promise<QuotaState> {
  const caller = request.caller;
  if (!caller) throw new Error("countUnits needs the access hook");
  const { credentials: scheme = "bearer" } = request.routeOptions.config;
  const counted = await deps.usage.authorize(caller.secret, caller.now, units);
  if (!counted) throw unauthorized(scheme, "invalid_api_key", request);
  if (counted.quota.allowed) {
    request.caller = { ...caller, quota: counted.quota, units };
    return counted.quota;
  }
  // Nothing was counted: report what is left (not 0), so a client can send fewer items.
  const left = (await deps.usage.authorize(caller.secret, caller.now, 0))?.quota ?? caller.quota;
  request.caller = { ...caller, quota: { ...left, allowed: false }, units: 0 };
  throw quotaExceeded(left, caller.now, units);
}

/** The `preHandler` hook of a route whose `units` is a function of the request: `countUnits` of them. */
export function countUnitsOfBody(deps: AccessDeps): preHandlerAsyncHookHandler {
  return async (request) => {
    const cost = request.routeOptions.config.units;
    if (typeof cost !== "function") throw new Error("countUnitsOfBody needs units of the body");
    await countUnits(deps, request, cost(request));
  };
}

/** Whether the answer is a 5xx to a request that counted units (docs/api.md "Keys, plans, quotas": they are given back). */
function mustRefund(caller: Caller, reply: FastifyReply): boolean {
  return caller.quota.allowed && caller.units > 0 && reply.statusCode >= 500;
}

/** Gives a 5xx answer's units back; the remaining requests to report, null for an unlimited plan. */
async function refund(deps: AccessDeps, request: FastifyRequest, caller: Caller): Promise<number | null> {
  const { quota, units } = caller;
  try {
    await deps.usage.refund(caller.key, quota.periodStart, units, deps.clock());
    return quota.remaining === null ? null : quota.remaining + units;
  } catch (error) {
    request.log.warn({ err: error, keyId: caller.key.id }, "could not refund a request answered with a 5xx");
    return quota.remaining;
  }
}

/**
 * The text of the rate-limit headers, from prepared values: a plan's limit and the
 * seconds until a reset change rarely, so their text is kept while they stand (no
 * object per answer). An unlimited plan reports MAX_QUOTA: the headers stay whole numbers.
 */
export class RateLimitTexts {
  private limitOf: number | null | undefined;
  private limitText = "";
  private resetSeconds = Number.NaN;
  private resetText = "";

  /** `x-ratelimit-requests-remaining`: the requests left (null: an unlimited plan). */
  remaining(remaining: number | null): string {
    return String(remaining ?? MAX_QUOTA);
  }

  /** `x-ratelimit-requests-limit`. */
  limit(quota: QuotaState): string {
    if (quota.limit !== this.limitOf) {
      this.limitOf = quota.limit;
      this.limitText = String(quota.limit ?? MAX_QUOTA);
    }
    return this.limitText;
  }

  /** `x-ratelimit-requests-reset`: whole seconds from the request's time until the period resets. */
  reset(quota: QuotaState, now: Date): string {
    const seconds = secondsUntil(quota.resetAt, now);
    if (seconds !== this.resetSeconds) {
      this.resetSeconds = seconds;
      this.resetText = String(seconds);
    }
    return this.resetText;
  }
}

/**
 * The `onSend` hook of every answer on a checking path. The headers describe a key's
 * quota, so they go on answers to a request whose key was found (200, 4xx after the key,
 * 429, a 5xx of a check); a 401 says only `remaining: 0`, and a 405 or
 * a 503 before the key was read carries none. An unlimited plan reports MAX_QUOTA as
 * its limit and remaining requests: the headers stay whole numbers.
 */
export function rateLimitHeadersHook(deps: AccessDeps): onSendHookHandler {
  const texts = new RateLimitTexts();
  const setHeaders = (reply: FastifyReply, caller: Caller, remaining: number | null) => {
    reply.header("x-ratelimit-requests-remaining", texts.remaining(remaining));
    reply.header("x-ratelimit-requests-limit", texts.limit(caller.quota));
    reply.header("x-ratelimit-requests-reset", texts.reset(caller.quota, caller.now));
  };
  // Synchronous unless a 5xx has units to give back: the hook runs on every answer.
  return (request, reply, payload, done) => {
    const caller = request.caller;
    if (reply.statusCode === 401) {
      reply.header("x-ratelimit-requests-remaining", "0");
      done(null, payload);
      return;
    }
    if (!caller) {
      done(null, payload);
      return;
    }
    if (mustRefund(caller, reply)) {
      refund(deps, request, caller).then((remaining) => {
        setHeaders(reply, caller, remaining);
        done(null, payload);
      }, done);
      return;
    }
    setHeaders(reply, caller, caller.quota.remaining);
    done(null, payload);
  };
}
