/** `/admin/overrides` (docs/api.md §10): the operator's overrides — list, set, remove. */
import { Type } from "@fastify/type-provider-typebox";
import { parseDomain } from "../../core/input.js";
import { infrastructureValue, type OverrideKind } from "../../core/learned.js";
import type { NameRules } from "../../core/reserved-names.js";
import { applyOverride, InvalidOverrideError } from "../../service/overrides.js";
import { overrideJson } from "../../store/json.js";
import { HttpProblem } from "../problems.js";
import type { TypedApp } from "../typed-app.js";
import type { AdminDeps } from "./deps.js";
import {
  ADMIN_ROUTE,
  adminResponses,
  OverrideBody,
  OverrideSchema,
  OverrideTargetBody,
  RemovedSchema,
} from "./schemas.js";

/** The value as the check sees it: a normalised domain (400 `invalid_domain`), or a lower-case host or an address (400 `invalid_body`). */
function normalisedValue(kind: OverrideKind, value: string, rules: NameRules): string {
  if (kind !== "domain") {
    const infrastructure = infrastructureValue(kind, value);
    if (!infrastructure.ok) throw new HttpProblem("invalid_body", `${infrastructure.problem}.`);
    return infrastructure.value;
  }
  const parsed = parseDomain(value, rules);
  if (!parsed.ok)
    throw new HttpProblem("invalid_domain", `"${value}" is not a domain: ${parsed.problem.detail}`);
  return parsed.input.domain;
}

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
    async () => (await store.overrides.listOverrides()).map(overrideJson),
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
      const { kind, action, note } = request.body;
      try {
        const saved = await applyOverride(store, {
          kind,
          value: normalisedValue(kind, request.body.value, deps),
          action,
          note: note ?? null,
          createdAt: clock(),
        });
        await settle();
        reply.code(201);
        return overrideJson(saved);
      } catch (error) {
        if (error instanceof InvalidOverrideError) throw new HttpProblem("invalid_body", `${error.message}.`);
        throw error;
      }
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
      const { kind } = request.body;
      const removed = await store.overrides.removeOverride(
        kind,
        normalisedValue(kind, request.body.value, deps),
      );
      if (removed) await settle();
      return { removed };
    },
  );
}
