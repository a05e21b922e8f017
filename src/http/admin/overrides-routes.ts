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
import { ADMIN_ROUTE, adminResponses } from "./admin-schemas.js";
import { type AdminDeps, settled } from "./deps.js";

export function adminOverrideRoutes(app: TypedApp, deps: AdminDeps): void {
  const { store, clock, settle } = deps;
  app.get(
    "/admin/overrides",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "List the operator's overrides",
        response: adminResponses(200, Type.Array(OverrideSchema), []),
      },
    },
    () => listOverrides(store),
  );

  app.post(
    "/admin/overrides",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "Set an override: allow or deny a domain, or mark infrastructure never disposable",
        description:
          'A domain takes "allow" or "deny"; an MX host, MX address or name server takes "never_disposable". Setting it again replaces it. Verdicts are decided when answering: the next answer on this server reflects it, on every other process and instance within a second.',
        body: OverrideBody,
        response: adminResponses(201, OverrideSchema, [400]),
      },
    },
    async (request, reply) => {
      const saved = await settled(settle, setOverride(store, request.body, clock(), deps, ADMIN_TOKEN_ACTOR));
      reply.code(201);
      return saved;
    },
  );

  app.post(
    "/admin/overrides/remove",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "Remove an override",
        body: OverrideTargetBody,
        response: adminResponses(200, RemovedSchema, [400]),
      },
    },
    async (request) => {
      const answer = await removeOverride(store, request.body, deps, ADMIN_TOKEN_ACTOR);
      if (answer.removed) await settle();
      return answer;
    },
  );
}
