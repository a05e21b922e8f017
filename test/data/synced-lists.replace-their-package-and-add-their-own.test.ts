/**
 * The disposable list in force with synced sources merged into the bundled one: a source
 * named like a bundled package replaces that package's entries (a name only it listed
 * is no longer disposable, a name others list too stays theirs), any source adds its
 * own entries with when it first listed them, and the merge yields to the event loop.
 */
import { beforeAll, expect, it } from "vitest";
import { BundledDomainLists } from "../../src/core/domain-list-lookups.js";
import { type BundledListData, domainListData, readListData } from "../../src/data/read-domain-lists.js";
import { mergeSynced, type SyncedSource, withSyncedSources } from "../../src/data/synced-lists.js";

const SINCE = Date.parse("2026-11-02T00:00:00Z");
let bundled: BundledListData;

/** A synced version of these entries, each first listed at SINCE. */
const version = (source: string, entries: string[]): SyncedSource => ({
  source,
  entryCount: entries.length,
  entries: async () => [entries.map((e) => [e, SINCE] as const)],
});

beforeAll(() => {
  bundled = domainListData(readListData());
});

const sourcesOf = (lists: BundledDomainLists, domain: string) => lists.disposable(domain, domain)?.sources;

it("replaces a bundled package's part, keeps the others', and adds a source's own entries", async () => {
  expect(bundled.disposable.get("13.1955gmail.com")).toEqual(["mailchecker"]);
  expect(bundled.disposable.get("0-00.usa.cc")).toEqual(["@dahoom/disposable-email", "mailchecker"]);
  const lists = new BundledDomainLists(
    await withSyncedSources(bundled, [
      version("mailchecker", ["brand-new-throwaway.com"]),
      version("my-list", ["0-00.usa.cc", "mine.example-throwaway.net"]),
    ]),
  );
  expect(sourcesOf(lists, "13.1955gmail.com")).toBeUndefined();
  expect(sourcesOf(lists, "0-00.usa.cc")).toEqual(["@dahoom/disposable-email", "my-list"]);
  expect(sourcesOf(lists, "brand-new-throwaway.com")).toEqual(["mailchecker"]);
  expect(sourcesOf(lists, "mine.example-throwaway.net")).toEqual(["my-list"]);
  expect(lists.listedSince("brand-new-throwaway.com", "mailchecker")).toEqual(new Date(SINCE));
  expect(lists.listedSince("0-00.usa.cc", "@dahoom/disposable-email")).toBeNull();
  expect(lists.listedSince("0-00.usa.cc", "my-list")).toEqual(new Date(SINCE));
  // Entries untouched by any synced source keep the bundled (shared, frozen) source arrays.
  const merged = await mergeSynced(bundled.disposable, [version("my-list", [])]);
  expect(merged.get("0-30-24.com")).toBe(bundled.disposable.get("0-30-24.com"));
});

it("is the bundled list itself without synced sources", async () => {
  expect(await withSyncedSources(bundled, [])).toBe(bundled);
});

it("lets other work run while it merges a large source", async () => {
  const big = version(
    "big",
    Array.from({ length: 200_000 }, (_, i) => `big-${i}.com`),
  );
  let turns = 0;
  const ticking = setInterval(() => turns++, 0);
  const merged = await mergeSynced(bundled.disposable, [big]);
  clearInterval(ticking);
  expect(merged.get("big-199999.com")).toEqual(["big"]);
  expect(turns).toBeGreaterThan(5);
});
