/**
 * Access to the checking routes: authentication (401), then quota (429), both in the
 * route's `onRequest` hook so they come before anything about the body (400/413/415),
 * as SPEC §3 orders them. `onSend` puts the rate-limit headers on every response of
 * a checking route and gives a counted request back when the answer is a 5xx.
 */
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onSendHookHandler } from "fastify";
import { formatTimestamp } from "../core/record.js";
import type { AuthenticatedKey, Authorization, QuotaState, Store } from "../store/types.js";
import { type CredentialScheme, readCredentials } from "./credentials.js";
import { databaseUnavailable, HttpProblem } from "./problems.js";

/** What the access hook learnt about the caller of a checking route. */
export interface Caller {
  key: AuthenticatedKey;
  quota: QuotaState;
  now: Date;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the access hook once the key is known and counted (or refused with 429). */
    caller: Caller | null;
    /** The request is a browser asking `GET /` for the home page: no key, no quota. */
    servesPage: boolean;
  }
}

export interface AccessDeps {
  store: Store;
  clock: () => Date;
}

const BEARER_CHALLENGE = 'Bearer realm="mailrisk"';

function unauthorized(scheme: CredentialScheme, code: "missing_api_key" | "invalid_api_key"): HttpProblem {
  const where = scheme === "bearer" ? "an Authorization: Bearer header" : "an X-Gateway-Key header";
  const detail =
    code === "missing_api_key"
      ? `Send your API key in ${where}.`
      : `The API key in ${where} is incorrect or revoked.`;
  const headers: Record<string, string> =
    scheme === "bearer"
      ? {
          "www-authenticate":
            code === "missing_api_key" ? BEARER_CHALLENGE : `${BEARER_CHALLENGE}, error="invalid_token"`,
        }
      : {};
  return new HttpProblem(code, detail, headers);
}

function secondsUntil(when: Date, now: Date): number {
  return Math.max(0, Math.ceil((when.getTime() - now.getTime()) / 1000));
}

/** The first candidate secret (plain, or base64-decoded) that names a live key; that one is counted. */
async function authorize(store: Store, candidates: string[], now: Date): Promise<Authorization | undefined> {
  for (const secret of candidates) {
    const authorization = await store.authorize(secret, now);
    if (authorization) return authorization;
  }
  return undefined;
}

/** The `onRequest` hook of a checking route: 401, 503 or 429, or lets the request on. */
export function accessHook(
  deps: AccessDeps,
  scheme: CredentialScheme,
  servesPage: (request: FastifyRequest) => boolean = () => false,
): onRequestAsyncHookHandler {
  return async (request) => {
    if (servesPage(request)) {
      request.servesPage = true;
      return;
    }
    const credentials = readCredentials(scheme, request.headers);
    if (credentials.kind === "missing") throw unauthorized(scheme, "missing_api_key");
    if (credentials.kind === "malformed") throw unauthorized(scheme, "invalid_api_key");
    const now = deps.clock();
    let authorization: Authorization | undefined;
    try {
      authorization = await authorize(deps.store, credentials.candidates, now);
    } catch {
      throw databaseUnavailable();
    }
    if (!authorization) throw unauthorized(scheme, "invalid_api_key");
    const { key, quota } = authorization;
    request.caller = { key, quota, now };
    if (!quota.allowed) {
      throw new HttpProblem(
        "quota_exceeded",
        `The quota of ${quota.limit} requests per period is used up; it resets at ${formatTimestamp(quota.resetAt)}.`,
        { "retry-after": String(secondsUntil(quota.resetAt, now)) },
      );
    }
  };
}

/** Gives a counted request back when the service answers with a 5xx (SPEC §6). */
async function refundOnServerError(deps: AccessDeps, request: FastifyRequest, reply: FastifyReply) {
  const caller = request.caller;
  if (!caller?.quota.allowed || reply.statusCode < 500) return caller?.quota.remaining ?? 0;
  try {
    await deps.store.refundQuota(caller.key, caller.quota.periodStart);
    return caller.quota.remaining + 1;
  } catch (error) {
    request.log.warn({ err: error, keyId: caller.key.id }, "could not refund a request answered with a 5xx");
    return caller.quota.remaining;
  }
}

/** The `onSend` hook of every checking route (and its 405 answers). */
export function rateLimitHeadersHook(deps: AccessDeps): onSendHookHandler {
  return async (request, reply, payload) => {
    if (request.servesPage) return payload;
    const caller = request.caller;
    const remaining = await refundOnServerError(deps, request, reply);
    reply.header("x-ratelimit-requests-remaining", String(remaining));
    reply.header("x-ratelimit-requests-limit", String(caller?.quota.limit ?? 0));
    reply.header(
      "x-ratelimit-requests-reset",
      String(caller ? secondsUntil(caller.quota.resetAt, caller.now) : 0),
    );
    return payload;
  };
}
