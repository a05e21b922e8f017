/**
 * The synced lists (docs/data.md "Synced lists"): each source's state, a sync now, a
 * rollback to the previous version. Running servers take an accepted one within a second.
 */
import { type Static, Type } from "typebox";
import type { Config, ListSource } from "../config-table.js";
import { formatTimestamp } from "../core/record.js";
import { nullable, Timestamp } from "../core/schema-types.js";
import { bundledGate, rollbackLists, type SyncReport, syncLists } from "../service/lists/list-sync.js";
import type { ListSourceState, ListVersionSummary, Store } from "../store/index.js";
import { type Actor, audited, recordChange } from "./audit.js";
import { Refusal } from "./refusal.js";

const VersionSchema = Type.Union([
  Type.Object({ hash: Type.String(), entries: Type.Integer(), accepted_at: Timestamp }),
  Type.Null(),
]);

export const SourceStateSchema = Type.Object({
  source: Type.String(),
  configured: Type.Boolean({
    description: "Whether LIST_SOURCES names it (else only its stored versions remain).",
  }),
  in_policy: nullable<boolean>("boolean", {
    description:
      "Whether the database's list policy names it, so that every process decides with it; null before a sync set the policy (each process's LIST_SOURCES decides).",
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
export type SourceStateJson = Static<typeof SourceStateSchema>;

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

export const SyncReportSchema = Type.Object({
  ran: Type.Boolean({ description: "False when another process was syncing: nothing was fetched." }),
  sources: Type.Array(SourceReportSchema),
});

export const RollbackBody = Type.Object(
  { source: Type.Optional(Type.String({ minLength: 1 })) },
  { additionalProperties: false },
);
export const RolledBackSchema = Type.Object({ rolled_back: Type.Array(Type.String()) });

function versionJson(version: ListVersionSummary | null | undefined) {
  if (!version) return null;
  return {
    hash: version.hash,
    entries: version.entryCount,
    accepted_at: formatTimestamp(version.acceptedAt),
  };
}

/** `age_seconds`: since the source last confirmed its version in force (null: never). */
function sourceStateJson(
  source: string,
  where: { configured: boolean; in_policy: boolean | null; url: string },
  state: ListSourceState | undefined,
  now: Date,
): SourceStateJson {
  const lastSuccess = state?.lastSuccess ?? null;
  return {
    source,
    configured: where.configured,
    in_policy: where.in_policy,
    url: where.url,
    last_attempt: state ? formatTimestamp(state.lastAttempt) : null,
    last_success: lastSuccess ? formatTimestamp(lastSuccess) : null,
    last_error: state?.lastError ?? null,
    age_seconds: lastSuccess ? Math.floor((now.getTime() - lastSuccess.getTime()) / 1000) : null,
    in_force: versionJson(state?.current),
    previous: versionJson(state?.previous),
  };
}

/**
 * Every configured source, every source of the list policy and every source with stored
 * versions; `in_policy` null before a sync set the policy.
 */
export async function listStatus(
  store: Pick<Store, "lists">,
  sources: readonly ListSource[],
  now: Date,
): Promise<SourceStateJson[]> {
  const [states, policy] = await Promise.all([store.lists.listStates(), store.lists.policy()]);
  const names = [
    ...new Set([...sources.map((s) => s.name), ...(policy?.sources ?? []), ...states.map((s) => s.source)]),
  ];
  return names.map((source) => {
    const state = states.find((s) => s.source === source);
    const url = sources.find((s) => s.name === source)?.url ?? state?.url ?? "";
    const configured = sources.some((s) => s.name === source);
    const in_policy = policy ? policy.sources.includes(source) : null;
    return sourceStateJson(source, { configured, in_policy, url }, state, now);
  });
}

/**
 * Syncs every source now, judged by the bundled gate; `ran` false when another process
 * holds the lock. Recorded after the sync, in a write of its own: the fetches take too
 * long to hold a transaction open.
 */
export async function updateLists(
  store: Pick<Store, "lists" | "locks" | "audit">,
  config: Pick<Config, "listSources" | "listMaxEntries">,
  clock: () => Date,
  holder: string,
  actor: Actor,
): Promise<SyncReport> {
  const { listSources: sources, listMaxEntries: maxEntries } = config;
  const report = await syncLists({ store, sources, maxEntries, gate: bundledGate(), clock, holder });
  if (report.ran) {
    const outcomes = Object.fromEntries(report.sources.map((s) => [s.source, s.outcome]));
    await recordChange(store, actor, {
      action: "lists.update",
      entity: { kind: "lists", id: null },
      detail: { outcomes },
    });
  }
  return report;
}

export const RemoveBody = Type.Object(
  { source: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);
export const RemovedSchema = Type.Object({ removed: Type.String() });

/** Deletes a source's stored versions: its bundled entries, or none, are in force again; `unknown_source` when none were stored. */
export function removeSource(
  store: Pick<Store, "transaction">,
  source: string,
  actor: Actor,
): Promise<Static<typeof RemovedSchema>> {
  return audited(
    store,
    actor,
    async (trx) => {
      if (!(await trx.lists.removeSource(source)))
        throw new Refusal("unknown_source", `unknown source "${source}": nothing of it is stored`);
      return { removed: source };
    },
    () => ({ action: "lists.remove", entity: { kind: "lists", id: source }, detail: {} }),
  );
}

/** Puts the previous version of a source (default: every one) back in force; the sources rolled back. */
export function rollback(
  store: Pick<Store, "transaction">,
  source: string | undefined,
  actor: Actor,
): Promise<Static<typeof RolledBackSchema>> {
  return audited(
    store,
    actor,
    async (trx) => ({ rolled_back: await rollbackLists(trx, source) }),
    ({ rolled_back }) =>
      rolled_back.length > 0
        ? { action: "lists.rollback", entity: { kind: "lists", id: source ?? null }, detail: { rolled_back } }
        : undefined,
  );
}
