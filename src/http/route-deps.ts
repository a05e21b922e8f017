/** The app type the route files and plugins take, and what the checking routes receive. */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from "fastify";
import type { AccessDeps } from "./access.js";
import type { RunCheckDeps } from "./run-check.js";

export type TypedApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What the checking routes receive: the usage slice of the store, the checker, metrics and the clock. */
export interface CheckingDeps extends AccessDeps, RunCheckDeps {}
