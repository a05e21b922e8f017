/**
 * The operator's desk asks the accounts' sessions who is signed in (docs/console.md, "The
 * operator's desk"): an active account with the `operator` role, and its session's CSRF
 * token on every form.
 */
import type { FastifyRequest } from "fastify";
import { HttpProblem } from "../../http/http-problem.js";
import type { OperatorAccess } from "../desk/operator-access.js";
import type { PageSession, Session } from "./page-session.js";

export function operatorSessions(pages: PageSession): OperatorAccess {
  // One look-up of the session per request: the desk asks who, then checks and renders the token.
  const sessions = new WeakMap<FastifyRequest, Promise<Session | undefined>>();
  const sessionOf = (request: FastifyRequest) => {
    let found = sessions.get(request);
    if (!found) {
      found = pages.session(request);
      sessions.set(request, found);
    }
    return found;
  };
  return {
    async operatorOf(request: FastifyRequest) {
      const account = (await sessionOf(request))?.account;
      return account?.role === "operator" && account.state === "active"
        ? { email: account.email }
        : undefined;
    },
    async csrfTokenOf(request: FastifyRequest) {
      return (await sessionOf(request))?.csrf ?? "";
    },
    async checkCsrf(request: FastifyRequest) {
      try {
        pages.checkCsrf(request, (await sessionOf(request))?.csrf);
        return true;
      } catch (error) {
        if (error instanceof HttpProblem) return false;
        throw error;
      }
    },
  };
}
