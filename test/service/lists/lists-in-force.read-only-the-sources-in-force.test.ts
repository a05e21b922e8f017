/**
 * The lists in force read the stored versions of the sources LIST_SOURCES names only (a
 * source dropped from it costs nothing), and read nothing again until a version changes.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../harness/databases.js";
import { domainListData, readListData } from "../../../src/data/read-domain-lists.js";
import { ListsInForce } from "../../../src/service/lists/lists-in-force.js";
import type { Store } from "../../../src/store/index.js";
import { openStore } from "../../../src/store/index.js";

const AT = new Date("2026-11-02T08:00:00Z");
let database: TestDatabase;
let store: Store;

beforeEach(async () => {
  database = await createTestDatabase("sqlite");
  store = await openStore(database.location);
  await store.migrate();
  for (const source of ["kept", "dropped"]) {
    await store.lists.acceptVersion({
      source,
      hash: `${source}-1`,
      url: `http://127.0.0.1/${source}.txt`,
      acceptedAt: AT,
      entries: new Map([[`${source}-throwaway.com`, AT.getTime()]]),
    });
  }
});
afterEach(async () => {
  await store.close();
  await database.drop();
});

it("reads the entries of the sources in force only, and only when a version changed", async () => {
  const read: string[] = [];
  const lists = { ...store.lists };
  lists.currentEntries = (source) => {
    read.push(source);
    return store.lists.currentEntries(source);
  };
  const inForce = new ListsInForce({
    bundled: domainListData(readListData()),
    store: { lists },
    sources: ["kept"],
  });
  await inForce.ready;
  expect(read).toEqual(["kept"]);
  expect(inForce.disposable("kept-throwaway.com", "kept-throwaway.com")?.sources).toEqual(["kept"]);
  expect(inForce.listedSince("kept-throwaway.com", "kept")).toEqual(AT);
  expect(inForce.disposable("dropped-throwaway.com", "dropped-throwaway.com")).toBeUndefined();
  await inForce.reloadAfterChange();
  expect(read).toEqual(["kept"]);
});
