/** `POST /admin/records/purge` (docs/api.md "Administration"): adapts src/operator/records.ts. */
import { ADMIN_TOKEN_ACTOR } from "../../operator/audit.js";
import { PurgeBody, PurgedSchema, purgeRecords } from "../../operator/records.js";
import type { TypedApp } from "../typed-app.js";
import { adminRoute } from "./admin-schemas.js";
import type { AdminDeps } from "./deps.js";

/** Room for 1,000 domains of the longest kind. */
const PURGE_BODY_LIMIT_BYTES = 512 * 1024;

export function adminRecordRoutes(app: TypedApp, deps: AdminDeps): void {
  const { store } = deps;
  app.post(
    "/admin/records/purge",
    {
      bodyLimit: PURGE_BODY_LIMIT_BYTES,
      ...adminRoute(
        {
          summary: 'Drop cached records: {"domains": [...]} or {"all": true}',
          description:
            "The next check of a purged domain is a fresh look-up: at once on this server, within a second on every other process and instance. The recently checked list is kept.",
          body: PurgeBody,
        },
        PurgedSchema,
        [400],
      ),
    },
    (request) => purgeRecords(store, request.body, deps, ADMIN_TOKEN_ACTOR),
  );
}
