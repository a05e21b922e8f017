/**
 * Which synced sources are in force is the database's list policy (docs/data.md, "Who
 * sets the policy"): before a sync sets one, a process keeps its own LIST_SOURCES; once
 * set, every process decides with the policy's sources whatever its LIST_SOURCES names,
 * tells the difference once per policy, and takes a new policy when it reloads (the
 * `lists` change topic, raised only when the policy changes).
 */
import { afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { type BundledListData, domainListData, readListData } from "../../../src/data/read-domain-lists.js";
import { describePolicyDifference } from "../../../src/service/checking/create-checker.js";
import { ListsInForce } from "../../../src/service/lists/lists-in-force.js";
import type { Store } from "../../../src/store/index.js";
import { openStore } from "../../../src/store/index.js";

const AT = new Date("2026-11-02T08:00:00Z");
const MINE = "mine-throwaway.com";
const THEIRS = "theirs-throwaway.com";

let bundled: BundledListData;
let store: Store;
let told: [readonly string[], readonly string[]][];

beforeAll(() => {
  bundled = domainListData(readListData());
});
beforeEach(async () => {
  store = await openStore({ dialect: "sqlite", path: ":memory:" });
  await store.migrate();
  told = [];
  for (const [source, entry] of [
    ["mine", MINE],
    ["theirs", THEIRS],
  ] as const) {
    await store.lists.acceptVersion({
      source,
      hash: source,
      url: `http://127.0.0.1:9/${source}.txt`,
      acceptedAt: AT,
      entries: new Map([[entry, AT.getTime()]]),
    });
  }
});
afterEach(() => store.close());

/** A process whose LIST_SOURCES names `mine`, loaded. */
async function process(): Promise<ListsInForce> {
  const lists = new ListsInForce({
    bundled,
    store,
    sources: ["mine"],
    onPolicyDiffers: (configured, policy) => told.push([configured, policy]),
  });
  await lists.ready;
  return lists;
}

const listed = (lists: ListsInForce, domain: string) => lists.disposable(domain, domain) !== undefined;

it("keeps LIST_SOURCES until a sync sets the policy", async () => {
  const lists = await process();
  expect([listed(lists, MINE), listed(lists, THEIRS)]).toEqual([true, false]);
  expect(told).toEqual([]);
});

it("decides with the policy's sources, tells the difference once, and takes a new policy on reload", async () => {
  expect(await store.lists.setPolicy(["theirs"], AT)).toBe(true);
  const lists = await process();
  expect([listed(lists, MINE), listed(lists, THEIRS)]).toEqual([false, true]);
  expect(lists.sources.map((s) => s.source)).toEqual(["theirs"]);
  await lists.reloadAfterChange();
  expect(told).toEqual([[["mine"], ["theirs"]]]);
  expect(describePolicyDifference(["mine"], ["theirs"])).toBe(
    "LIST_SOURCES here names mine, but the database's list policy (set by the last sync) names theirs, and the policy decides here",
  );

  await store.lists.setPolicy(["mine", "theirs"], AT);
  await lists.reloadAfterChange();
  expect([listed(lists, MINE), listed(lists, THEIRS)]).toEqual([true, true]);
  expect(told).toEqual([
    [["mine"], ["theirs"]],
    [["mine"], ["mine", "theirs"]],
  ]);

  await store.lists.setPolicy(["mine"], AT);
  await lists.reloadAfterChange();
  expect([listed(lists, MINE), listed(lists, THEIRS)]).toEqual([true, false]);
  expect(told).toHaveLength(2);
});

it("raises the lists topic only when the policy changes", async () => {
  const raised = async () => (await store.changes.versions()).get("lists");
  const before = await raised();
  expect(await store.lists.policy()).toBeUndefined();
  expect(await store.lists.setPolicy(["theirs", "mine"], AT)).toBe(true);
  expect(await store.lists.setPolicy(["mine", "theirs"], new Date(AT.getTime() + 1000))).toBe(false);
  expect(await store.lists.policy()).toEqual({ sources: ["mine", "theirs"], setAt: AT });
  expect(await raised()).toBe((before ?? 0) + 1);
  expect(await store.lists.setPolicy([], AT)).toBe(true);
  expect(await store.lists.policy()).toEqual({ sources: [], setAt: AT });
});
