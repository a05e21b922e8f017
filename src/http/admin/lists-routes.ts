/** `/admin/lists` (docs/api.md "Administration"): adapts src/operator/lists.ts. */

import { Type } from "@fastify/type-provider-typebox";
import { ADMIN_TOKEN_ACTOR } from "../../operator/audit.js";
import {
  listStatus,
  RemoveBody,
  RemovedSchema,
  RollbackBody,
  RolledBackSchema,
  removeSource,
  rollback,
  SourceStateSchema,
  SyncReportSchema,
  updateLists,
} from "../../operator/lists.js";
import { HttpProblem } from "../http-problem.js";
import type { TypedApp } from "../typed-app.js";
import { adminRoute } from "./admin-schemas.js";
import type { AdminDeps } from "./deps.js";

export function adminListRoutes(app: TypedApp, deps: AdminDeps): void {
  const { store, clock, listSources } = deps;
  app.get(
    "/admin/lists",
    adminRoute(
      "Each synced list: URL, last attempt and success, version in force, age, last error",
      Type.Array(SourceStateSchema),
    ),
    () => listStatus(store, listSources, clock()),
  );

  app.post(
    "/admin/lists/update",
    adminRoute(
      {
        summary: "Sync the upstream lists of LIST_SOURCES now",
        description:
          "Fetches and judges every source; accepted versions hold on this server before the answer, on every other process within a second. `ran` is false when another process was syncing.",
      },
      SyncReportSchema,
    ),
    () => updateLists(store, deps, clock, `admin ${process.pid}`, ADMIN_TOKEN_ACTOR),
  );

  app.post(
    "/admin/lists/rollback",
    adminRoute(
      { summary: "Return a synced list (default: every one) to its previous version", body: RollbackBody },
      RolledBackSchema,
      [400, 404],
    ),
    async (request) => {
      const answer = await rollback(store, request.body?.source, ADMIN_TOKEN_ACTOR);
      if (answer.rolled_back.length === 0) {
        throw new HttpProblem(
          "invalid_body",
          `${request.body?.source ?? "No source"} has no previous version.`,
        );
      }
      return answer;
    },
  );

  app.post(
    "/admin/lists/remove",
    adminRoute(
      {
        summary: "Delete a source's stored versions: its bundled entries, or none, are in force again",
        body: RemoveBody,
      },
      RemovedSchema,
      [400, 404],
    ),
    (request) => removeSource(store, request.body.source, ADMIN_TOKEN_ACTOR),
  );
}
