/**
 * CORS for publishable keys only (docs/api.md "Publishable keys and CORS"). A preflight (`OPTIONS /`, `OPTIONS
 * /v2/`) carries no key, so it is allowed when its `Origin` is listed by some live
 * publishable key (the store remembers that set, read at most every 30 seconds). An
 * actual request gets the headers only once its publishable key admitted its origin
 * (publishable-keys.ts); a secret key's answers and other origins get none, so a page of
 * another origin can never read what a secret key was answered.
 */
import type { FastifyReply, onSendHookHandler } from "fastify";
import { parseOrigin } from "../core/origin.js";
import type { UsageRepository } from "../store/index.js";
import type { TypedApp } from "./typed-app.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The origin a publishable key admitted; its answer carries CORS headers naming it. */
    corsOrigin: string | null;
  }
}

/** Seconds a browser may remember a preflight's answer. */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;
/** The paths of the checking routes that take publishable keys. */
const PUBLISHABLE_PATHS = ["/", "/v2/"] as const;

const ALLOW_METHODS = "GET, POST";
const ALLOW_HEADERS = "content-type, authorization, x-gateway-key";
/** What a page may read of an answer beyond the safelisted headers. */
const EXPOSE_HEADERS =
  "x-ratelimit-requests-remaining, x-ratelimit-requests-limit, x-ratelimit-requests-reset, retry-after";

/** A request's `Origin` header in normal form; undefined when absent, `null` or no origin. */
export function requestOrigin(header: string | string[] | undefined): string | undefined {
  if (typeof header !== "string") return undefined;
  const parsed = parseOrigin(header);
  return parsed.ok ? parsed.origin : undefined;
}

/** Adds `Origin` to the answer's `Vary` (the error answers set `Vary: Accept`). */
function varyOnOrigin(reply: FastifyReply): void {
  const vary = reply.getHeader("vary");
  reply.header("vary", vary === undefined || vary === "" ? "Origin" : `${String(vary)}, Origin`);
}

/** The `onSend` hook of the checking paths: CORS headers on answers to an admitted origin. */
export const corsHeadersHook: onSendHookHandler = (request, reply, payload, done) => {
  const origin = request.corsOrigin;
  if (origin !== null) {
    reply.headers({
      "access-control-allow-origin": origin,
      "access-control-expose-headers": EXPOSE_HEADERS,
    });
    varyOnOrigin(reply);
  }
  done(null, payload);
};

export interface PreflightDeps {
  usage: Pick<UsageRepository, "isPublishableOrigin">;
  clock: () => Date;
}

/** `OPTIONS /` and `OPTIONS /v2/`: 204, with CORS headers when a live publishable key lists the Origin. */
export function preflightRoutes(app: TypedApp, deps: PreflightDeps): void {
  for (const url of PUBLISHABLE_PATHS) {
    app.options(url, { schema: { hide: true } }, async (request, reply) => {
      const origin = requestOrigin(request.headers.origin);
      if (origin !== undefined && (await deps.usage.isPublishableOrigin(origin, deps.clock()))) {
        reply.headers({
          "access-control-allow-origin": origin,
          "access-control-allow-methods": ALLOW_METHODS,
          "access-control-allow-headers": ALLOW_HEADERS,
          "access-control-max-age": String(PREFLIGHT_MAX_AGE_SECONDS),
        });
      }
      return reply.header("vary", "Origin").code(204).send();
    });
  }
}
