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
import { ADMIN_ROUTE, adminResponses } from "./admin-schemas.js";
import { type AdminDeps, settled } from "./deps.js";

export function adminPlanRoutes(app: TypedApp, { store, settle }: AdminDeps): void {
  app.get(
    "/admin/plans",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "List the plans",
        response: adminResponses(200, Type.Array(PlanSchema), []),
      },
    },
    () => listPlans(store),
  );

  app.post(
    "/admin/plans",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "Create a plan (quota null: unlimited)",
        body: CreatePlanBody,
        response: adminResponses(201, PlanSchema, [400, 409]),
      },
    },
    async (request, reply) => {
      reply.code(201);
      return createPlan(store, request.body, ADMIN_TOKEN_ACTOR);
    },
  );

  app.patch(
    "/admin/plans/:name",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "Change a plan's quota or period",
        description:
          "Keys on the plan count against the new quota at once on this server, within a second on every other process and instance. A new period length starts new periods for every key on the plan.",
        params: PlanNameParams,
        body: UpdatePlanBody,
        response: adminResponses(200, PlanSchema, [400, 404]),
      },
    },
    (request) => settled(settle, updatePlan(store, request.params.name, request.body, ADMIN_TOKEN_ACTOR)),
  );
}
