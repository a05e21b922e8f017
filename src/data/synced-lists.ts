/**
 * The disposable list in force: the bundled one with the synced versions of upstream
 * sources merged in (docs/data.md, "Synced lists"). A synced source replaces its own
 * part of the bundled list (a source named like a bundled package, `mailchecker`, drops
 * that package's bundled entries), so a name every source removed stops being
 * disposable; other sources add theirs. Built in slices that yield to the event loop,
 * so checks do not pause while a new version loads.
 */
import { setImmediate } from "node:timers/promises";
import type { DomainListData } from "../core/list-interfaces.js";

/** A synced source's version as the merge needs it: entry → when the source first listed it (epoch ms). */
export interface SyncedSource {
  source: string;
  entries: ReadonlyMap<string, number>;
}

/** Entries merged between two yields to the event loop. */
const SLICE = 5_000;

/** One frozen array per distinct list of sources, as the bundled loader keeps them. */
class SourceLists {
  private readonly known = new Map<string, readonly string[]>();

  of(sources: readonly string[]): readonly string[] {
    const key = sources.join("\n");
    let shared = this.known.get(key);
    if (shared === undefined) {
      shared = Object.freeze([...sources]);
      this.known.set(key, shared);
    }
    return shared;
  }
}

/** The bundled disposable list with the synced sources merged in: entry → its sources. */
export async function mergeSynced(
  bundled: ReadonlyMap<string, readonly string[]>,
  synced: readonly SyncedSource[],
): Promise<Map<string, readonly string[]>> {
  const replaced = new Set(synced.map((s) => s.source));
  const interned = new SourceLists();
  const merged = new Map<string, readonly string[]>();
  let done = 0;
  for (const [entry, sources] of bundled) {
    const kept = sources.some((s) => replaced.has(s)) ? sources.filter((s) => !replaced.has(s)) : sources;
    if (kept.length > 0) merged.set(entry, kept === sources ? sources : interned.of(kept));
    if (++done % SLICE === 0) await setImmediate();
  }
  for (const { source, entries } of synced) {
    for (const entry of entries.keys()) {
      const sources = merged.get(entry);
      merged.set(entry, interned.of(sources ? [...sources, source] : [source]));
      if (++done % SLICE === 0) await setImmediate();
    }
  }
  return merged;
}

/** The engine's lists with the synced sources in force, and their provenance. */
export async function withSyncedSources(
  bundled: DomainListData,
  synced: readonly SyncedSource[],
): Promise<DomainListData> {
  if (synced.length === 0) return bundled;
  return {
    ...bundled,
    disposable: await mergeSynced(bundled.disposable, synced),
    listedSince: new Map(synced.map((s) => [s.source, s.entries])),
  };
}
