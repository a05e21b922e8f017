/**
 * A fixed operator token in `Authorization: Bearer <token>` (ADMIN_TOKEN for /admin/,
 * METRICS_TOKEN for /metrics). Both sides are hashed with SHA-256 before
 * `timingSafeEqual`, so the comparison takes the same time whatever the length or the
 * first differing character of a guess.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { onRequestAsyncHookHandler } from "fastify";
import type { ProblemCode } from "../service/shared/problem-codes.js";
import { readBearer } from "./credentials.js";
import { HttpProblem } from "./http-problem.js";

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** A function telling whether a presented token is `token`, in constant time. */
export function tokenMatcher(token: string): (presented: string) => boolean {
  const expected = digest(token);
  return (presented) => timingSafeEqual(digest(presented), expected);
}

export interface BearerTokenRules {
  token: string;
  /** The `WWW-Authenticate` realm, e.g. `mailrisk-admin`. */
  realm: string;
  missing: { code: ProblemCode; detail: string };
  invalid: { code: ProblemCode; detail: string };
}

/**
 * An `onRequest` hook: 401 unless the request carries the token; no header or an empty
 * Bearer is `missing`, another scheme (`Basic …`) `wrong_auth_scheme`, a wrong token `invalid`.
 */
export function bearerTokenHook(rules: BearerTokenRules): onRequestAsyncHookHandler {
  const matches = tokenMatcher(rules.token);
  const challenge = `Bearer realm="${rules.realm}"`;
  return async (request) => {
    const bearer = readBearer(request.headers.authorization);
    if (bearer.kind === "missing") {
      throw new HttpProblem(rules.missing.code, rules.missing.detail, { "www-authenticate": challenge });
    }
    if (bearer.kind === "wrong_scheme") {
      throw new HttpProblem(
        "wrong_auth_scheme",
        "The Authorization header does not use the Bearer scheme; send Authorization: Bearer <token>.",
        { "www-authenticate": challenge },
      );
    }
    if (bearer.kind === "malformed" || !matches(bearer.token)) {
      throw new HttpProblem(rules.invalid.code, rules.invalid.detail, {
        "www-authenticate": `${challenge}, error="invalid_token"`,
      });
    }
  };
}
