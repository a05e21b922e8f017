/**
 * The operator's desk asks the accounts' sessions who is signed in (docs/console.md, "The
 * operator's desk"): an active account with the `operator` role, and its session's CSRF
 * token on every form.
 */
import type { FastifyRequest } from "fastify";
import type { OperatorAccess } from "../console/operator-access.js";
import { HttpProblem } from "../http-problem.js";
import type { PageSession } from "./page-session.js";

export function operatorSessions(pages: PageSession): OperatorAccess {
  return {
    async operatorOf(request: FastifyRequest) {
      const account = (await pages.session(request))?.account;
      return account?.role === "operator" && account.state === "active"
        ? { email: account.email }
        : undefined;
    },
    async csrfTokenOf(request: FastifyRequest) {
      return (await pages.session(request))?.csrf ?? "";
    },
    async checkCsrf(request: FastifyRequest) {
      try {
        pages.checkCsrf(request, (await pages.session(request))?.csrf);
        return true;
      } catch (error) {
        if (error instanceof HttpProblem) return false;
        throw error;
      }
    },
  };
}
