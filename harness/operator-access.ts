/**
 * A stand-in for the accounts' sessions, for tests of the console only: the cookie
 * `operator=<email>` signs an operator in (anything else, a member's cookie included,
 * is nobody), and every form's CSRF token is one fixed value.
 */
import type { FastifyRequest } from "fastify";
import type { OperatorAccess } from "../src/http/console/operator-access.js";

export const TEST_CSRF_TOKEN = "csrf-token-for-tests";

function cookie(request: FastifyRequest, name: string): string | undefined {
  for (const pair of request.headers.cookie?.split(/;\s*/) ?? []) {
    const [key, value] = pair.split("=");
    if (key === name && value) return decodeURIComponent(value);
  }
  return undefined;
}

export const testOperatorAccess: OperatorAccess = {
  operatorOf: async (request) => {
    const email = cookie(request, "operator");
    return email ? { email } : undefined;
  },
  csrfTokenOf: async () => TEST_CSRF_TOKEN,
  checkCsrf: async (request) =>
    (request.body as Record<string, unknown> | undefined)?.csrf === TEST_CSRF_TOKEN,
};
