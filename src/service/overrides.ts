/**
 * The operator's overrides (docs/api.md §10, `mailrisk overrides`), set or removed with
 * what they change: the cached records they decide are purged, so the next check of each
 * is fresh. Every instance takes the change into its learnt snapshot within 30 s and
 * then purges the same records again (`purgeChanged`), in case one of its checks saved
 * a record under the old overrides meanwhile.
 */
import { type OverrideKind, overrideProblem } from "../core/learned.js";
import type { Override, Store } from "../store/types.js";

/** Records of domains on a piece of infrastructure purged at most per override change. */
const PURGE_LIMIT = 100_000;

export class InvalidOverrideError extends Error {}

type OverrideStore = {
  overrides: Store["overrides"];
  records: Pick<Store["records"], "purgeRecords">;
  infrastructure: Pick<Store["infrastructure"], "domainsOn">;
};

/** The domains whose records an override of this kind and value decides. */
async function decided(
  store: Pick<OverrideStore, "infrastructure">,
  kind: OverrideKind,
  value: string,
): Promise<string[]> {
  return kind === "domain" ? [value] : store.infrastructure.domainsOn(kind, value, PURGE_LIMIT);
}

/**
 * Purges again what changed overrides decide, when an instance first sees the change:
 * a check it made with the old overrides meanwhile may have saved a record
 * (learned-snapshot.ts).
 */
export async function purgeChanged(
  store: Pick<OverrideStore, "records" | "infrastructure">,
  changes: readonly Pick<Override, "kind" | "value">[],
): Promise<void> {
  for (const { kind, value } of changes) {
    await store.records.purgeRecords(await decided(store, kind, value));
  }
}

/** Sets an override (`InvalidOverrideError` for an action its kind does not take) and purges what it decides. */
export async function applyOverride(store: OverrideStore, override: Override): Promise<Override> {
  const problem = overrideProblem(override.kind, override.action);
  if (problem !== null) throw new InvalidOverrideError(problem);
  const saved = await store.overrides.setOverride(override);
  await store.records.purgeRecords(await decided(store, override.kind, override.value));
  return saved;
}

/** Removes an override; whether there was one. */
export async function removeOverride(
  store: OverrideStore,
  kind: OverrideKind,
  value: string,
): Promise<boolean> {
  const removed = await store.overrides.removeOverride(kind, value);
  if (removed) await store.records.purgeRecords(await decided(store, kind, value));
  return removed;
}
