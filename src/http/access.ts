/**
 * Access to the checking routes: authentication (401), then quota (429), in the
 * checking plugin's `onRequest` hook so they come before anything about the body
 * (400/413/415), as docs/api.md §3 orders them. Each route's config names where its key
 * travels (`credentials`) and how many units a request costs (`units`, default 1).
 * `onSend` puts the rate-limit headers on every response of a checking path and gives
 * the counted units back when the answer is a 5xx. Store failures are not caught here:
 * the error handler tells an unreachable database (503) from anything else (500).
 */
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onSendHookHandler } from "fastify";
import { formatTimestamp } from "../core/record.js";
import type { AuthenticatedKey, Authorization, QuotaState, UsageRepository } from "../store/types.js";
import { type CredentialScheme, readCredentials } from "./credentials.js";
import { HttpProblem } from "./problems.js";

/** What the access hook learnt about the caller of a checking route. */
export interface Caller {
  key: AuthenticatedKey;
  quota: QuotaState;
  now: Date;
  /** Units this request counted (or asked for, when refused). */
  units: number;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the access hook once the key is known and counted (or refused with 429). */
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** A checking route: where its key travels (docs/api.md §3). */
    credentials?: CredentialScheme;
    /** Units of quota one request of the route costs; default 1. */
    units?: number;
  }
}

/** The part of the usage repository the checking routes use. */
export type QuotaGate = Pick<UsageRepository, "authorize" | "refund">;

export interface AccessDeps {
  usage: QuotaGate;
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
async function authorize(
  usage: QuotaGate,
  candidates: string[],
  now: Date,
  units: number,
): Promise<Authorization | undefined> {
  for (const secret of candidates) {
    const authorization = await usage.authorize(secret, now, units);
    if (authorization) return authorization;
  }
  return undefined;
}

/** The `onRequest` hook of the checking routes: 401 or 429, or lets the request on. */
export function accessHook(deps: AccessDeps): onRequestAsyncHookHandler {
  return async (request) => {
    const { credentials: scheme, units = 1 } = request.routeOptions.config;
    if (!scheme) throw new Error(`checking route ${request.routeOptions.url} names no credentials`);
    const credentials = readCredentials(scheme, request.headers);
    if (credentials.kind === "missing") throw unauthorized(scheme, "missing_api_key");
    if (credentials.kind === "malformed") throw unauthorized(scheme, "invalid_api_key");
    const now = deps.clock();
    const authorization = await authorize(deps.usage, credentials.candidates, now, units);
    if (!authorization) throw unauthorized(scheme, "invalid_api_key");
    const { key, quota } = authorization;
    request.caller = { key, quota, now, units };
    if (!quota.allowed) {
      throw new HttpProblem(
        "quota_exceeded",
        `The quota of ${quota.limit} requests per period is used up; it resets at ${formatTimestamp(quota.resetAt)}.`,
        { "retry-after": String(secondsUntil(quota.resetAt, now)) },
      );
    }
  };
}

/** Gives the counted units back when the service answers with a 5xx (docs/api.md §6). */
async function refundOnServerError(deps: AccessDeps, request: FastifyRequest, reply: FastifyReply) {
  const caller = request.caller;
  if (!caller?.quota.allowed || reply.statusCode < 500) return caller?.quota.remaining ?? 0;
  try {
    await deps.usage.refund(caller.key, caller.quota.periodStart, caller.units);
    return caller.quota.remaining + caller.units;
  } catch (error) {
    request.log.warn({ err: error, keyId: caller.key.id }, "could not refund a request answered with a 5xx");
    return caller.quota.remaining;
  }
}

/** The `onSend` hook of every answer on a checking path (its 405 answers too). */
export function rateLimitHeadersHook(deps: AccessDeps): onSendHookHandler {
  return async (request, reply, payload) => {
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
