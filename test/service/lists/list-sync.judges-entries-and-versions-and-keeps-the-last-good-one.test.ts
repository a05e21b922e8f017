/**
 * Syncing upstream lists from a loopback HTTP server into a real store: entries that may
 * never be disposable are refused one by one with their reason; versions that shrink by
 * more than 30 %, answer 500, garbage bytes or 60 MB, time out or redirect to another
 * host are refused whole, the version in force stays, and the other sources are applied;
 * a new version keeps when each entry was first listed; rollback returns to the previous
 * version; one process syncs at a time. A version that answers is read within the sync's
 * 2 s deadline stretched by the machine's pace (harness/machine-pace.ts), so that only the
 * silent one trips the deadline itself.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ListServer, madeUpList, startListServer } from "../../../harness/list-server.js";
import { startPace } from "../../../harness/machine-pace.js";
import { DEFAULT_LIST_MAX_ENTRIES, type ListSource } from "../../../src/config-table.js";
import { readCuratedLists } from "../../../src/data/curated.js";
import { type ListGate, listGate } from "../../../src/data/list-gate.js";
import { DATA_DIR } from "../../../src/data/read-domain-lists.js";
import { fetchList } from "../../../src/service/lists/list-fetch.js";
import {
  everySourceRead,
  type ListSyncOptions,
  rollbackLists,
  syncLists,
} from "../../../src/service/lists/list-sync.js";
import type { Store } from "../../../src/store/index.js";
import { openStore } from "../../../src/store/index.js";

const DAY1 = new Date("2026-11-02T08:00:00Z");
const DAY2 = new Date("2026-11-03T08:00:00Z");

let gate: ListGate;
let server: ListServer;
let store: Store;
let now: Date;

beforeAll(() => {
  gate = listGate(readCuratedLists(DATA_DIR));
});
beforeEach(async () => {
  server = await startListServer();
  store = await openStore({ dialect: "sqlite", path: ":memory:" });
  await store.migrate();
  now = DAY1;
});
afterEach(async () => {
  await store.close();
  await server.close();
});

const source = (name: string, path = `/${name}.txt`): ListSource => ({ name, url: `${server.url}${path}` });

/** Reads a list with the sync's limits: up to 50 MB, within `timeoutMs`. */
const fetchWithin = (timeoutMs: number) => (url: string) =>
  fetchList(url, { timeoutMs, maxBytes: 50 * 1024 * 1024 });

function sync(sources: ListSource[], options: Partial<ListSyncOptions> = {}) {
  return syncLists({
    store,
    sources,
    maxEntries: DEFAULT_LIST_MAX_ENTRIES,
    gate,
    clock: () => now,
    holder: "test",
    fetch: fetchWithin(2000),
    ...options,
  });
}

async function inForce(name: string): Promise<string[]> {
  return [...((await store.lists.currentVersion(name))?.entries.keys() ?? [])].sort();
}

describe("entries", () => {
  it("keeps the names that may be disposable and refuses each of the others with its reason", async () => {
    server.publish("/up.txt", {
      body: [
        "# a comment",
        "Fresh-Throwaway.COM",
        "",
        "mail.fresh-throwaway.com  # a subdomain",
        "gmail.com",
        "outlook.com",
        "co.uk",
        "edu.pl",
        "example.com",
        "mit.edu",
        "uw.edu.pl",
        "gold.edu.pl",
        "mod.gov.pl",
        "anonaddy.me",
        "not a domain",
      ].join("\n"),
    });
    const report = await sync([source("up")]);
    expect(everySourceRead(report)).toBe(true);
    const [up] = report.sources;
    expect(up).toMatchObject({ source: "up", outcome: "accepted", entries: 3, added: 3, removed: 0 });
    expect(Object.fromEntries(up?.refused.map((r) => [r.entry, r.reason.split(":")[0]]) ?? [])).toEqual({
      "gmail.com":
        "a known-good domain, a provider's, a parking service's, or under an academic or government suffix",
      "outlook.com":
        "a known-good domain, a provider's, a parking service's, or under an academic or government suffix",
      "co.uk": "a public suffix",
      "edu.pl": "a public suffix",
      "example.com": "a reserved name (RFC 2606/6761)",
      "mit.edu":
        "a known-good domain, a provider's, a parking service's, or under an academic or government suffix",
      "uw.edu.pl":
        "a known-good domain, a provider's, a parking service's, or under an academic or government suffix",
      "mod.gov.pl":
        "a known-good domain, a provider's, a parking service's, or under an academic or government suffix",
      "anonaddy.me": "a forwarding (relay) service",
      "not a domain": "not a domain name",
    });
    expect(await inForce("up")).toEqual(["fresh-throwaway.com", "gold.edu.pl", "mail.fresh-throwaway.com"]);
  });

  it("reads a JSON array of strings as well as lines", async () => {
    server.publish("/up.json", { body: JSON.stringify(["json-throwaway.com", "gmail.com"]) });
    const [up] = (await sync([source("up", "/up.json")])).sources;
    expect(up).toMatchObject({ outcome: "accepted", entries: 1 });
    expect(await inForce("up")).toEqual(["json-throwaway.com"]);
  });

  it("keeps when each entry was first listed, and counts what was added and removed", async () => {
    server.publish("/up.txt", { body: madeUpList(10) });
    await sync([source("up")]);
    now = DAY2;
    server.publish("/up.txt", { body: `${madeUpList(9)}new-one.com\nnew-two.com\n` });
    const [up] = (await sync([source("up")])).sources;
    expect(up).toMatchObject({ outcome: "accepted", entries: 11, added: 2, removed: 1 });
    const entries = (await store.lists.currentVersion("up"))?.entries;
    expect(entries?.get("throwaway-0.com")).toBe(DAY1.getTime());
    expect(entries?.get("new-one.com")).toBe(DAY2.getTime());
    expect(entries?.has("throwaway-9.com")).toBe(false);
    // The same list again is no new version.
    expect((await sync([source("up")])).sources[0]).toMatchObject({ outcome: "unchanged", added: 0 });
    expect((await store.lists.listStates())[0]?.previous?.entryCount).toBe(10);
  });
});

describe("versions refused whole", () => {
  beforeEach(async () => {
    server.publish("/up.txt", { body: madeUpList(100) });
    server.publish("/other.txt", { body: madeUpList(5, "other") });
    await sync([source("up")]);
  });

  it.each([
    ["cut to 10 %", { body: madeUpList(10) }, "refused", /shrinks by 90 %/],
    ["cut by 31 %", { body: madeUpList(69) }, "refused", /shrinks by 31 %/],
    ["empty", { body: "# nothing\n" }, "refused", /no entry/],
    ["only names that may never be disposable", { body: "gmail.com\nco.uk\n" }, "refused", /no entry/],
    ["HTTP 500", { body: "oops", status: 500 }, "failed", /HTTP 500/],
    [
      "garbage bytes",
      { body: new Uint8Array([0xff, 0xfe, 0x00, 0x81, 0xc3, 0x28]) },
      "failed",
      /not UTF-8|NUL/,
    ],
    ["JSON that is no list", { body: '{"domains": 3}' }, "failed", /not an array of strings/],
    ["60 MB", { body: new Uint8Array(60 * 1024 * 1024).fill(0x61) }, "failed", /larger than 50 MB/],
    ["a redirect to another host", { redirect: "http://localhost:1/up.txt" }, "failed", /another host/],
    ["no answer", { silent: true as const }, "failed", /within 2 s/],
  ])(
    "keeps the version in force when the new one is %s, and applies the other sources",
    async (_, answer, outcome, reason) => {
      server.publish("/up.txt", answer);
      // The silent source trips the 2 s deadline; the others are read however long the machine takes.
      const fetch = fetchWithin("silent" in answer ? 2000 : Math.round(startPace().bound(2000)));
      const report = await sync([source("up"), source("other")], { fetch });
      const [up, other] = report.sources;
      expect(up).toMatchObject({ outcome, entries: 100, added: 0, removed: 0 });
      expect(up?.reason).toMatch(reason);
      expect(other).toMatchObject({ outcome: "accepted", entries: 5 });
      expect(everySourceRead(report)).toBe(outcome !== "failed");
      expect(await inForce("up")).toHaveLength(100);
      const state = (await store.lists.listStates()).find((s) => s.source === "up");
      expect(state?.lastError).toMatch(reason);
      expect(state?.lastSuccess).toEqual(DAY1);
    },
  );

  it("refuses a version over LIST_MAX_ENTRIES as a whole, and takes one at the limit", async () => {
    server.publish("/up.txt", { body: madeUpList(121) });
    const [up] = (await sync([source("up")], { maxEntries: 120 })).sources;
    expect(up).toMatchObject({ outcome: "refused", entries: 100, added: 0 });
    expect(up?.reason).toBe("holds 121 entries; LIST_MAX_ENTRIES allows 120");
    expect(await inForce("up")).toHaveLength(100);
    server.publish("/up.txt", { body: madeUpList(120) });
    expect((await sync([source("up")], { maxEntries: 120 })).sources[0]).toMatchObject({
      outcome: "accepted",
    });
  });

  it("follows a redirect on the same host", async () => {
    server.publish("/up.txt", { redirect: "/moved.txt" });
    server.publish("/moved.txt", { body: madeUpList(100, "moved") });
    const [up] = (await sync([source("up")])).sources;
    expect(up).toMatchObject({ outcome: "accepted", added: 100, removed: 100 });
  });
});

describe("rollback and the lock", () => {
  it("returns to the previous version, and a second rollback undoes the first", async () => {
    server.publish("/up.txt", { body: madeUpList(3) });
    await sync([source("up")]);
    server.publish("/up.txt", { body: madeUpList(3, "second") });
    await sync([source("up")]);
    expect(await inForce("up")).toEqual(["second-0.com", "second-1.com", "second-2.com"]);
    expect(await rollbackLists(store)).toEqual(["up"]);
    expect(await inForce("up")).toEqual(["throwaway-0.com", "throwaway-1.com", "throwaway-2.com"]);
    expect(await rollbackLists(store, "up")).toEqual(["up"]);
    expect(await inForce("up")).toEqual(["second-0.com", "second-1.com", "second-2.com"]);
    await expect(rollbackLists(store, "never-synced")).rejects.toThrow(/unknown source "never-synced"/);
    // Two versions accepted, the policy set by the first sync, two rollbacks; nothing for the unknown source.
    expect((await store.changes.versions()).get("lists")).toBe(5);
  });

  it("syncs in one process at a time", async () => {
    server.publish("/up.txt", { body: madeUpList(3) });
    expect(
      await store.locks.tryLock("list-sync", "other instance", now, new Date(now.getTime() + 60_000)),
    ).toBe(true);
    expect(await sync([source("up")])).toEqual({ ran: false, sources: [] });
    expect(server.hits("/up.txt")).toBe(0);
    now = new Date(now.getTime() + 61_000); // the other instance's lock expired
    expect((await sync([source("up")])).ran).toBe(true);
  });
});
