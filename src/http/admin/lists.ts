/**
 * `/admin/lists` (docs/api.md §10, docs/data.md "Synced lists"): each synced source's
 * state, a sync now, a rollback, a removal. The same as `mailrisk lists status|update|rollback|remove`.
 */
import { Type } from "@fastify/type-provider-typebox";
import { bundledGate, listStatus, removeList, rollbackLists, syncLists } from "../../service/list-sync.js";
import { HttpProblem } from "../problems.js";
import type { TypedApp } from "../route-deps.js";
import { nullable, Timestamp } from "../schemas.js";
import type { AdminDeps } from "./deps.js";
import { ADMIN_ROUTE, adminResponses } from "./schemas.js";

const VersionSchema = Type.Union([
  Type.Object({ hash: Type.String(), entries: Type.Integer(), accepted_at: Timestamp }),
  Type.Null(),
]);

const SourceStateSchema = Type.Object({
  source: Type.String(),
  configured: Type.Boolean({
    description: "Whether LIST_SOURCES names it (else only its stored versions remain).",
  }),
  url: Type.String(),
  last_attempt: nullable<string>("string", { format: "date-time" }),
  last_success: nullable<string>("string", { format: "date-time" }),
  last_error: nullable<string>("string"),
  age_seconds: nullable<number>("integer", {
    description: "Since the source last confirmed its version in force.",
  }),
  in_force: VersionSchema,
  previous: VersionSchema,
});

const SourceReportSchema = Type.Object({
  source: Type.String(),
  url: Type.String(),
  outcome: Type.Union([
    Type.Literal("accepted"),
    Type.Literal("unchanged"),
    Type.Literal("refused"),
    Type.Literal("failed"),
  ]),
  reason: nullable<string>("string"),
  entries: Type.Integer(),
  added: Type.Integer(),
  removed: Type.Integer(),
  refused: Type.Array(Type.Object({ entry: Type.String(), reason: Type.String() })),
});

const SyncReportSchema = Type.Object({
  ran: Type.Boolean({ description: "False when another process was syncing: nothing was fetched." }),
  sources: Type.Array(SourceReportSchema),
});

export function adminListRoutes(
  app: TypedApp,
  { store, clock, settle, listSources, listMaxEntries }: AdminDeps,
): void {
  app.get(
    "/admin/lists",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "Each synced list: URL, last attempt and success, version in force, age, last error",
        response: adminResponses(200, Type.Array(SourceStateSchema), []),
      },
    },
    () => listStatus(store, listSources, clock()),
  );

  app.post(
    "/admin/lists/update",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "Sync the upstream lists of LIST_SOURCES now",
        description:
          "Fetches and judges every source; accepted versions hold on this server before the answer, on every other process within a second. `ran` is false when another process was syncing.",
        response: adminResponses(200, SyncReportSchema, []),
      },
    },
    async () => {
      const report = await syncLists({
        store,
        sources: listSources,
        maxEntries: listMaxEntries,
        gate: bundledGate(),
        clock,
        holder: `admin ${process.pid}`,
      });
      await settle();
      return report;
    },
  );

  app.post(
    "/admin/lists/rollback",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "Return a synced list (default: every one) to its previous version",
        body: Type.Object(
          { source: Type.Optional(Type.String({ minLength: 1 })) },
          { additionalProperties: false },
        ),
        response: adminResponses(200, Type.Object({ rolled_back: Type.Array(Type.String()) }), [400]),
      },
    },
    async (request) => {
      const rolled = await rollbackLists(store, request.body?.source);
      if (rolled.length === 0) {
        throw new HttpProblem(
          "invalid_body",
          `${request.body?.source ?? "No source"} has no previous version.`,
        );
      }
      await settle();
      return { rolled_back: rolled };
    },
  );

  app.post(
    "/admin/lists/remove",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "Delete a source's stored versions: its bundled entries, or none, are in force again",
        body: Type.Object({ source: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
        response: adminResponses(200, Type.Object({ removed: Type.String() }), [400, 404]),
      },
    },
    async (request) => {
      const { source } = request.body;
      if (!(await removeList(store, source))) {
        throw new HttpProblem("unknown_source", `There is no stored source "${source}".`);
      }
      await settle();
      return { removed: source };
    },
  );
}
