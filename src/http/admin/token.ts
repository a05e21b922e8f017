/**
 * The admin API's credential (docs/api.md §10): `Authorization: Bearer <ADMIN_TOKEN>`,
 * compared as SHA-256 digests in constant time (../bearer-token.ts).
 */
import type { onRequestAsyncHookHandler } from "fastify";
import { bearerTokenHook } from "../bearer-token.js";

/** The admin scope's `onRequest` hook: 401 unless the request carries the admin token. */
export function adminAuthHook(token: string): onRequestAsyncHookHandler {
  return bearerTokenHook({
    token,
    realm: "mailrisk-admin",
    missing: {
      code: "missing_admin_token",
      detail: "Send the admin token in an Authorization: Bearer header.",
    },
    invalid: { code: "invalid_admin_token", detail: "The admin token is incorrect." },
  });
}
