/**
 * The admin API's credential (docs/api.md "Administration"): `Authorization: Bearer <ADMIN_TOKEN>`,
 * compared as SHA-256 digests in constant time (../bearer-token.ts). Wrong tokens are
 * counted per client address (an IPv6 one by its /64, ../client-networks.ts): after 10 in
 * a minute the address is answered 429 `rate_limited` with `Retry-After` for a minute,
 * before its token is looked at (../window-limiter.ts).
 */
import type { onRequestAsyncHookHandler } from "fastify";
import { bearerTokenHook } from "../bearer-token.js";
import { subscriberOf } from "../client-networks.js";
import { HttpProblem } from "../http-problem.js";
import { WindowLimiter, type WindowLimiterOptions } from "../window-limiter.js";

/** The admin lock-out: 10 wrong tokens from an address in a minute lock it for a minute; 10,000 addresses held. */
export const ADMIN_LOCKOUT: WindowLimiterOptions = { limit: 10, lockMs: 60_000, maxClients: 10_000 };

function tooManyGuesses(seconds: number): HttpProblem {
  return new HttpProblem(
    "rate_limited",
    `Too many wrong admin tokens from this address: try again in ${seconds} seconds.`,
    { "retry-after": String(seconds) },
  );
}

/** The admin scope's `onRequest` hook: 429 for a locked address, else 401 unless the request carries the admin token. */
export function adminAuthHook(
  token: string,
  lockout = new WindowLimiter(ADMIN_LOCKOUT),
): onRequestAsyncHookHandler {
  const checkToken = bearerTokenHook({
    token,
    realm: "mailrisk-admin",
    missing: {
      code: "missing_admin_token",
      detail: "Send the admin token in an Authorization: Bearer header.",
    },
    invalid: { code: "invalid_admin_token", detail: "The admin token is incorrect." },
  });
  return async function adminAuth(request, reply) {
    const client = subscriberOf(request.ip);
    const locked = lockout.lockedSeconds(client);
    if (locked > 0) throw tooManyGuesses(locked);
    try {
      await checkToken.call(this, request, reply);
    } catch (error) {
      const lockedNow =
        error instanceof HttpProblem && error.code === "invalid_admin_token" ? lockout.count(client) : 0;
      throw lockedNow > 0 ? tooManyGuesses(lockedNow) : error;
    }
  };
}
