/**
 * A stand-in for the accounts' sessions, for tests of the console only: the cookie
 * `operator=<email>` signs an operator in (anything else, a member's cookie included,
 * is nobody), and every form's CSRF token is one fixed value. A form counts as the
 * server counts it: its token, and an `Origin` of this site (the server's own check,
 * `comesFromOwnOrigin`), so a browser that posts `Origin: null` is refused here too.
 */
import type { FastifyRequest } from "fastify";
import { comesFromOwnOrigin } from "../src/page-kit/form-origin.js";
import type { OperatorAccess } from "../src/web/desk/operator-access.js";

export const TEST_CSRF_TOKEN = "csrf-token-for-tests";

function cookie(request: FastifyRequest, name: string): string | undefined {
  for (const pair of request.headers.cookie?.split(/;\s*/) ?? []) {
    const [key, value] = pair.split("=");
    if (key === name && value) return decodeURIComponent(value);
  }
  return undefined;
}

/** The stand-in, for a server without PUBLIC_URL (the tests' fixtures set none). */
export const testOperatorAccess: OperatorAccess = {
  operatorOf: async (request) => {
    const email = cookie(request, "operator");
    return email ? { email } : undefined;
  },
  csrfTokenOf: async () => TEST_CSRF_TOKEN,
  checkCsrf: async (request) =>
    comesFromOwnOrigin(request, null) &&
    (request.body as Record<string, unknown> | undefined)?.csrf === TEST_CSRF_TOKEN,
};
