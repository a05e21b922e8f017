/**
 * The disposable list in force: the bundled one with the synced versions of upstream
 * sources merged in (docs/data.md, "Synced lists"). A synced source replaces its own
 * part of the bundled list (a source named like a bundled package, `mailchecker`, drops
 * that package's bundled entries), so a name every source removed stops being
 * disposable; other sources add theirs. Built in slices that yield to the event loop, one
 * source's entries in memory at a time, into one packed table (src/core/packed-names.ts).
 */
import { setImmediate } from "node:timers/promises";
import type { DisposableEntries, DomainListData } from "../core/list-interfaces.js";
import { PackedNames } from "../core/packed-names.js";
import type { ListedSources } from "./generated.js";
import type { BundledListData } from "./read-domain-lists.js";

/** A synced source's version as the merge needs it; its entries are read, in batches, when it is merged. */
export interface SyncedSource {
  source: string;
  entryCount: number;
  /** Each entry with when the source first listed it (epoch ms), in batches. */
  entries(): Promise<AsyncIterable<EntryBatch> | Iterable<EntryBatch>>;
}

type EntryBatch = Iterable<readonly [string, number]>;

/** Entries merged between two yields to the event loop. */
const SLICE = 5_000;

/** An entry's sources, and when each synced one first listed it (epoch ms; NaN: a bundled source). */
interface Listing {
  sources: readonly string[];
  since: readonly number[];
}

/** The merged list: each entry's listing, one shared object per distinct listing. */
export class MergedDisposableList implements DisposableEntries {
  constructor(
    private readonly names: PackedNames,
    private readonly listings: readonly Listing[],
  ) {}

  get(entry: string): readonly string[] | undefined {
    const index = this.names.get(entry);
    return index === undefined ? undefined : this.listings[index]?.sources;
  }

  listedSince(entry: string, source: string): number | undefined {
    const index = this.names.get(entry);
    const listing = index === undefined ? undefined : this.listings[index];
    const at = listing?.since[listing.sources.indexOf(source)];
    return at === undefined || Number.isNaN(at) ? undefined : at;
  }
}

/**
 * One index per distinct listing (equal ones share it, and the first one's arrays). The
 * steps from one listing to the next are remembered, so that merging millions of entries
 * makes no garbage per entry: a bundled entry's by its sources array (shared by the
 * loader), a synced entry's by the listing before and when the source first listed it.
 */
class Listings {
  readonly all: Listing[] = [];
  private readonly known = new Map<string, number>();
  private readonly ofBundled = new Map<readonly string[], number>();
  /** The source being merged: listing before (-1: none) → first listed at → listing after. */
  private added = new Map<number, Map<number, number>>();

  private indexOf(sources: readonly string[], since: readonly number[]): number {
    const key = `${sources.join("\n")}\t${since.join(",")}`;
    let index = this.known.get(key);
    if (index === undefined) {
      index = this.all.length;
      this.all.push(Object.freeze({ sources: Object.freeze(sources), since: Object.freeze(since) }));
      this.known.set(key, index);
    }
    return index;
  }

  /** A bundled entry's listing once the replaced sources are dropped; undefined when none is left. */
  bundled(sources: readonly string[], replaced: ReadonlySet<string>): number | undefined {
    let index = this.ofBundled.get(sources);
    if (index === undefined) {
      const kept = sources.some((s) => replaced.has(s)) ? sources.filter((s) => !replaced.has(s)) : sources;
      index =
        kept.length === 0
          ? -1
          : this.indexOf(
              kept,
              kept.map(() => Number.NaN),
            );
      this.ofBundled.set(sources, index);
    }
    return index < 0 ? undefined : index;
  }

  startSource(): void {
    this.added = new Map();
  }

  /** The listing with `source` added, first listed `at`, to the one at `index` (or to none). */
  withSource(index: number | undefined, source: string, at: number): number {
    const from = index ?? -1;
    let byTime = this.added.get(from);
    if (byTime === undefined) {
      byTime = new Map();
      this.added.set(from, byTime);
    }
    let next = byTime.get(at);
    if (next === undefined) {
      const listing = index === undefined ? undefined : this.all[index];
      next = listing
        ? this.indexOf([...listing.sources, source], [...listing.since, at])
        : this.indexOf([source], [at]);
      byTime.set(at, next);
    }
    return next;
  }
}

/** The bundled disposable list with the synced sources merged in. */
export async function mergeSynced(
  bundled: ListedSources,
  synced: readonly SyncedSource[],
): Promise<MergedDisposableList> {
  const replaced = new Set(synced.map((s) => s.source));
  const names = new PackedNames(bundled.size + synced.reduce((sum, s) => sum + s.entryCount, 0));
  const listings = new Listings();
  let done = 0;
  for (const [entry, sources] of bundled) {
    const index = listings.bundled(sources, replaced);
    if (index !== undefined) names.set(entry, index);
    if (++done % SLICE === 0) await setImmediate();
  }
  for (const version of synced) {
    listings.startSource();
    for await (const batch of await version.entries()) {
      for (const [entry, at] of batch) {
        names.set(entry, listings.withSource(names.get(entry), version.source, at));
        if (++done % SLICE === 0) await setImmediate();
      }
    }
  }
  return new MergedDisposableList(names, listings.all);
}

/** The engine's lists with the synced sources in force, and their provenance. */
export async function withSyncedSources(
  bundled: BundledListData,
  synced: readonly SyncedSource[],
): Promise<DomainListData> {
  if (synced.length === 0) return bundled;
  return { ...bundled, disposable: await mergeSynced(bundled.disposable, synced) };
}
