/**
 * One sync of the upstream lists (docs/data.md, "Synced lists"): under a lock in the
 * database, so that one instance fetches for all, each source is fetched, read, judged
 * entry by entry by the same gate as the bundled build, and judged as a whole against
 * its version in force. An accepted version goes into the store, which raises the change
 * signal: every process takes it within a second; so does the policy the sync sets, its
 * sources being the ones in force everywhere. A source that fails, or whose new
 * version is refused, keeps its version in force; the others are applied all the same.
 */

import { createHash } from "node:crypto";
import { setImmediate } from "node:timers/promises";
import type { ListSource } from "../../config-table.js";
import { normaliseDomain } from "../../core/names.js";
import { readCuratedLists } from "../../data/curated.js";
import { DISPOSABLE_PACKAGES, type ListedSources } from "../../data/generated.js";
import { type ListGate, listGate, REFUSAL_TEXT } from "../../data/list-gate.js";
import { NotAListError, readListText } from "../../data/list-text.js";
import { DATA_DIR, readBundledDisposable } from "../../data/read-domain-lists.js";
import type { Store } from "../../store/index.js";
import { fetchList, ListFetchError } from "./list-fetch.js";

/** The lock every instance's sync takes. */
const LOCK = "list-sync";
/** How long a sync may hold it before another instance may take it over. */
const LOCK_MS = 10 * 60_000;
/** A new version may keep this share of the one in force, at least. */
export const MIN_KEPT_SHARE = 0.7;

export interface ListSyncOptions {
  store: Pick<Store, "lists" | "locks">;
  sources: readonly ListSource[];
  /** LIST_MAX_ENTRIES: a version holding more, once gated, is refused as a whole. */
  maxEntries: number;
  gate: ListGate;
  clock: () => Date;
  /** Who takes the lock: this process (e.g. `cli 1234`). */
  holder: string;
  /** Fetches a list's bytes (default over HTTP, src/service/lists/list-fetch.ts). */
  fetch?: (url: string) => Promise<Uint8Array>;
  /** The bundled disposable list, entry → its sources (default: read from data/ when a bundled source needs it). */
  bundled?: ListedSources;
  /** Told of each source that failed or was refused, with a reason code (metrics). */
  onFailure?: (source: string, reason: string) => void;
}

/** What happened to a source: a new version in force, the same one again, refused as a whole, or not read at all. */
export type SourceOutcome = "accepted" | "unchanged" | "refused" | "failed";

export interface SourceReport {
  source: string;
  url: string;
  outcome: SourceOutcome;
  /** Why a version was refused or the source failed; null otherwise. */
  reason: string | null;
  /** Entries of the version in force after the sync (0: none). */
  entries: number;
  /** Against the version in force before: entries added and removed (both 0 unless accepted). */
  added: number;
  removed: number;
  /** Entries of the new version left out, each with its reason. */
  refused: { entry: string; reason: string }[];
}

export interface SyncReport {
  /** False when another process held the lock: nothing was fetched. */
  ran: boolean;
  sources: SourceReport[];
}

/** Whether every source was fetched and judged (`mailrisk lists update` exits 0). */
export function everySourceRead(report: SyncReport): boolean {
  return report.ran && report.sources.every((s) => s.outcome !== "failed");
}

class RefusedVersion extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Names judged between two yields to the event loop: a server syncing on its schedule goes on answering. */
const JUDGE_SLICE = 5_000;

/** The raw names of a list judged one by one: the names that may be disposable, and the rest with why. */
async function judge(raw: readonly string[], gate: ListGate) {
  const kept = new Set<string>();
  const refused: { entry: string; reason: string }[] = [];
  for (const [index, name] of raw.entries()) {
    if (index % JUDGE_SLICE === JUDGE_SLICE - 1) await setImmediate();
    const domain = normaliseDomain(name);
    if (domain === undefined) {
      refused.push({ entry: name, reason: "not a domain name" });
      continue;
    }
    const refusal = gate(domain);
    if (refusal === undefined) kept.add(domain);
    else refused.push({ entry: domain, reason: REFUSAL_TEXT[refusal] });
  }
  return { kept, refused };
}

/** Whether a source is one of the bundled packages: its bundled entries are its first version. */
function isBundled(source: string): boolean {
  return DISPOSABLE_PACKAGES.some((p) => p.name === source);
}

/** A source's bundled version (docs/data.md, "The bundled list is a version"): its entries of data/disposable.txt. */
function bundledVersion(options: ListSyncOptions, source: string): ReadonlySet<string> {
  const entries = new Set<string>();
  if (!isBundled(source)) return entries;
  for (const [entry, sources] of options.bundled ?? readBundledDisposable()) {
    if (sources.includes(source)) entries.add(entry);
  }
  return entries;
}

function hashOf(entries: Iterable<string>): string {
  return createHash("sha256")
    .update([...entries].sort().join("\n"))
    .digest("hex");
}

async function syncSource(options: ListSyncOptions, { name, url }: ListSource): Promise<SourceReport> {
  const { store, clock } = options;
  const report: SourceReport = {
    source: name,
    url,
    outcome: "failed",
    reason: null,
    entries: 0,
    added: 0,
    removed: 0,
    refused: [],
  };
  const current = await store.lists.currentVersion(name);
  // The version a new one is judged against: the one in force, else the bundled one.
  const inForce = current?.entries ?? bundledVersion(options, name);
  report.entries = inForce.size;
  try {
    const { kept, refused } = await judge(
      readListText(await (options.fetch ?? fetchList)(url)),
      options.gate,
    );
    report.refused = refused;
    if (kept.size === 0) throw new RefusedVersion("empty", "holds no entry that may be disposable");
    if (kept.size > options.maxEntries) {
      throw new RefusedVersion(
        "too_many_entries",
        `holds ${kept.size} entries; LIST_MAX_ENTRIES allows ${options.maxEntries}`,
      );
    }
    if (kept.size < MIN_KEPT_SHARE * inForce.size) {
      const share = Math.round((1 - kept.size / inForce.size) * 100);
      throw new RefusedVersion(
        "shrank",
        `shrinks by ${share} % (${inForce.size} → ${kept.size} entries${current ? "" : ", against the bundled list"}); more than 30 % is refused`,
      );
    }
    const now = clock();
    const hash = hashOf(kept);
    if (current?.hash !== hash) {
      const entries = new Map<string, number>();
      for (const domain of kept) entries.set(domain, current?.entries.get(domain) ?? now.getTime());
      await store.lists.acceptVersion({ source: name, hash, url, acceptedAt: now, entries });
      report.added = [...kept].filter((d) => !inForce.has(d)).length;
      report.removed = inForce.size - (kept.size - report.added);
    }
    report.outcome = current?.hash === hash ? "unchanged" : "accepted";
    report.entries = kept.size;
    await store.lists.recordAttempt(name, url, now, null);
  } catch (error) {
    if (
      !(error instanceof ListFetchError || error instanceof NotAListError || error instanceof RefusedVersion)
    ) {
      throw error;
    }
    report.outcome = error instanceof RefusedVersion ? "refused" : "failed";
    report.reason = error.message;
    const code =
      error instanceof NotAListError
        ? "not_a_list"
        : error instanceof ListFetchError
          ? error.reason
          : error.code;
    options.onFailure?.(name, code);
    await store.lists.recordAttempt(name, url, clock(), error.message);
  }
  return report;
}

/** Syncs every source, one after another, under the lock; `ran: false` when another process holds it. */
export async function syncLists(options: ListSyncOptions): Promise<SyncReport> {
  const { store, clock, holder } = options;
  const now = clock();
  if (!(await store.locks.tryLock(LOCK, holder, now, new Date(now.getTime() + LOCK_MS)))) {
    return { ran: false, sources: [] };
  }
  try {
    // The process that syncs sets the sources in force everywhere (docs/data.md, "Who sets the policy").
    const names = options.sources.map((s) => s.name);
    await store.lists.setPolicy(names, now);
    const sources: SourceReport[] = [];
    for (const source of options.sources) sources.push(await syncSource(options, source));
    return { ran: true, sources };
  } finally {
    await store.locks.unlock(LOCK, holder);
  }
}

/** The gate of the bundled curated lists: what may never be disposable. */
export function bundledGate(): ListGate {
  return listGate(readCuratedLists(DATA_DIR));
}

/** A source named for a rollback that was never synced: nothing of it is stored. */
export class UnknownSourceError extends Error {
  override name = "UnknownSourceError";
  constructor(source: string, known: readonly string[]) {
    super(
      `unknown source "${source}": none of that name was ever synced (synced: ${known.join(", ") || "none"})`,
    );
  }
}

/**
 * Puts each named source's (default: every source's) previous version back in force; the
 * sources rolled back. UnknownSourceError for a named source that was never synced.
 */
export async function rollbackLists(store: Pick<Store, "lists">, source?: string): Promise<string[]> {
  const known = (await store.lists.listStates()).map((s) => s.source);
  if (source !== undefined && !known.includes(source)) throw new UnknownSourceError(source, known);
  const rolled: string[] = [];
  for (const name of source === undefined ? known : [source])
    if (await store.lists.rollback(name, isBundled(name))) rolled.push(name);
  return rolled;
}
