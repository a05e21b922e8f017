/** `/admin/plans` (docs/api.md §10): list, create, update. */
import { Type } from "@fastify/type-provider-typebox";
import { planJson } from "../../store/json.js";
import type { TypedApp } from "../typed-app.js";
import type { AdminDeps } from "./deps.js";
import {
  ADMIN_ROUTE,
  adminResponses,
  CreatePlanBody,
  PlanNameParams,
  PlanSchema,
  UpdatePlanBody,
} from "./schemas.js";

/** docs/api.md §6: a plan's period is 30 days unless told otherwise. */
const DEFAULT_PERIOD_DAYS = 30;

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
    async () => (await store.plans.listPlans()).map(planJson),
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
      const { name, quota, period_days: periodDays = DEFAULT_PERIOD_DAYS } = request.body;
      const plan = await store.plans.createPlan({ name, quota, periodDays });
      reply.code(201);
      return planJson(plan);
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
    async (request) => {
      const { quota, period_days: periodDays } = request.body;
      const plan = await store.plans.updatePlan(request.params.name, {
        ...(quota !== undefined ? { quota } : {}),
        ...(periodDays !== undefined ? { periodDays } : {}),
      });
      await settle();
      return planJson(plan);
    },
  );
}
