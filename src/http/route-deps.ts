/** What every route file receives from `buildApp`. */
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

export interface RouteDeps extends AccessDeps, RunCheckDeps {}

declare module "fastify" {
  interface FastifyContextConfig {
    /** A checking route: its answers carry the rate-limit headers (SPEC §3). */
    checking?: boolean;
  }
}
