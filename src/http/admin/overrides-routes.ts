/** `/admin/overrides` (docs/api.md "Administration"): adapts src/operator/overrides.ts. */

import { Type } from "@fastify/type-provider-typebox";
import { ADMIN_TOKEN_ACTOR } from "../../operator/audit.js";
import {
  listOverrides,
  OverrideBody,
  OverrideSchema,
  OverrideTargetBody,
  RemovedSchema,
  removeOverride,
  setOverride,
} from "../../operator/overrides.js";
import type { TypedApp } from "../typed-app.js";
import { adminRoute } from "./admin-schemas.js";
import type { AdminDeps } from "./deps.js";

export function adminOverrideRoutes(app: TypedApp, deps: AdminDeps): void {
  const { store, clock } = deps;
  app.get("/admin/overrides", adminRoute("List the operator's overrides", Type.Array(OverrideSchema)), () =>
    listOverrides(store),
  );

  app.post(
    "/admin/overrides",
    adminRoute(
      {
        summary: "Set an override: allow or deny a domain, or mark infrastructure never disposable",
        description:
          'A domain takes "allow" or "deny"; an MX host, MX address or name server takes "never_disposable". Setting it again replaces it. Verdicts are decided when answering: the next answer on this server reflects it, on every other process and instance within a second.',
        body: OverrideBody,
      },
      OverrideSchema,
      [400],
      201,
    ),
    (request) => setOverride(store, request.body, clock(), deps, ADMIN_TOKEN_ACTOR),
  );

  app.post(
    "/admin/overrides/remove",
    adminRoute({ summary: "Remove an override", body: OverrideTargetBody }, RemovedSchema, [400]),
    (request) => removeOverride(store, request.body, deps, ADMIN_TOKEN_ACTOR),
  );
}
