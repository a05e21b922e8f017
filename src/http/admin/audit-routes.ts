/** `GET /admin/audit` (docs/console.md "The audit log"): adapts src/operator/audit.ts. */
import { Type } from "@fastify/type-provider-typebox";
import {
  AUDIT_SHOWN,
  AuditEntrySchema,
  AuditSearchFields,
  MAX_AUDIT_SHOWN,
  searchAudit,
} from "../../operator/audit.js";
import { limitOf } from "../../operator/refusal.js";
import type { TypedApp } from "../typed-app.js";
import { adminRoute, limitQuery } from "./admin-schemas.js";
import type { AdminDeps } from "./deps.js";

const AuditQuery = Type.Object({ ...AuditSearchFields, limit: limitQuery(MAX_AUDIT_SHOWN, AUDIT_SHOWN) });

export function adminAuditRoutes(app: TypedApp, { store }: AdminDeps): void {
  app.get(
    "/admin/audit",
    adminRoute(
      {
        summary: "The audit log: every change made through the CLI, the admin API or the console",
        description: "Newest first; each given parameter narrows the search. A detail never holds a secret.",
        querystring: AuditQuery,
      },
      Type.Array(AuditEntrySchema),
      [400],
    ),
    ({ query: { limit, ...filter } }) => searchAudit(store, { ...filter, limit: limitOf(limit) }),
  );
}
