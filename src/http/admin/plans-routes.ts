/** `/admin/plans` (docs/api.md "Administration"): adapts src/operator/plans.ts. */

import { Type } from "@fastify/type-provider-typebox";
import { ADMIN_TOKEN_ACTOR } from "../../operator/audit.js";
import {
  CreatePlanBody,
  createPlan,
  listPlans,
  PlanNameParams,
  PlanSchema,
  UpdatePlanBody,
  updatePlan,
} from "../../operator/plans.js";
import type { TypedApp } from "../typed-app.js";
import { adminRoute } from "./admin-schemas.js";
import type { AdminDeps } from "./deps.js";

export function adminPlanRoutes(app: TypedApp, { store }: AdminDeps): void {
  app.get("/admin/plans", adminRoute("List the plans", Type.Array(PlanSchema)), () => listPlans(store));

  app.post(
    "/admin/plans",
    adminRoute(
      { summary: "Create a plan (quota null: unlimited)", body: CreatePlanBody },
      PlanSchema,
      [400, 409],
      201,
    ),
    (request) => createPlan(store, request.body, ADMIN_TOKEN_ACTOR),
  );

  app.patch(
    "/admin/plans/:name",
    adminRoute(
      {
        summary: "Change a plan's quota or period",
        description:
          "Keys on the plan count against the new quota at once on this server, within a second on every other process and instance. A new period length starts new periods for every key on the plan.",
        params: PlanNameParams,
        body: UpdatePlanBody,
      },
      PlanSchema,
      [400, 404],
    ),
    (request) => updatePlan(store, request.params.name, request.body, ADMIN_TOKEN_ACTOR),
  );
}
