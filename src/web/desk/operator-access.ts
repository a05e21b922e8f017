/**
 * Who is the operator, as the console asks it (docs/console.md "The operator's desk"):
 * the accounts' sessions answer it. Until accounts exist, the server wires none, and
 * `/console` is a 404.
 */
import type { FastifyRequest } from "fastify";

export interface Operator {
  email: string;
}

export interface OperatorAccess {
  /** The operator signed in on this request; undefined for a member or nobody (a 404). */
  operatorOf(request: FastifyRequest): Promise<Operator | undefined>;
  /** The CSRF token every form of this request's pages carries, in a field named `csrf`. */
  csrfTokenOf(request: FastifyRequest): Promise<string>;
  /** Whether a form's POST carries its session's CSRF token (and comes from this origin). */
  checkCsrf(request: FastifyRequest): Promise<boolean>;
}
