/**
 * The scheduled sync in a server: it syncs when a source's last attempt (by any
 * instance) is an interval old and not before, warns once a day when a source's data in
 * force is older than 7 days, and gives the metrics each source's entries and age and
 * the failures by source and reason; a list policy other than its sources is due at once.
 * With LIST_SYNC_INTERVAL off it never syncs.
 */

import { afterEach, beforeEach, expect, it } from "vitest";
import { type ListServer, madeUpList, startListServer } from "../../../harness/list-server.js";
import { DEFAULT_LIST_MAX_ENTRIES } from "../../../src/config-table.js";
import { DAY_MS } from "../../../src/core/time.js";
import { createMetrics } from "../../../src/http/metrics-registry.js";
import { ListSchedule } from "../../../src/service/lists/list-schedule.js";
import type { Store } from "../../../src/store/index.js";
import { openStore } from "../../../src/store/index.js";

const START = new Date("2026-11-02T08:00:00Z");
let server: ListServer;
let store: Store;
let now: Date;
let warnings: string[];

beforeEach(async () => {
  server = await startListServer();
  store = await openStore({ dialect: "sqlite", path: ":memory:" });
  await store.migrate();
  now = START;
  warnings = [];
});
afterEach(async () => {
  await store.close();
  await server.close();
});

function schedule(intervalSeconds: number | null) {
  return new ListSchedule({
    store,
    sources: [{ name: "up", url: `${server.url}/up.txt` }],
    intervalSeconds,
    maxEntries: DEFAULT_LIST_MAX_ENTRIES,
    clock: () => now,
    logger: { info: () => {}, warn: (_: unknown, message?: string) => warnings.push(message ?? "") } as never,
  });
}

it("syncs when due, not before, and counts failures by source and reason", async () => {
  server.publish("/up.txt", { body: madeUpList(10) });
  const lists = schedule(3600);
  await lists.tick();
  expect(server.hits("/up.txt")).toBe(1);
  now = new Date(START.getTime() + 3599_000);
  await lists.tick();
  expect(server.hits("/up.txt")).toBe(1);
  now = new Date(START.getTime() + 3600_000);
  server.publish("/up.txt", { body: "x", status: 503 });
  await lists.tick();
  expect(server.hits("/up.txt")).toBe(2);
  expect(lists.states()).toEqual([{ source: "up", entries: 10, lastSuccess: START }]);
  expect(lists.failures()).toEqual([{ source: "up", reason: "status", count: 1 }]);
  expect(warnings).toEqual(["list sync failed; its version in force stays"]);

  const metrics = await createMetrics({}, lists).registry.metrics();
  expect(metrics).toContain('mailrisk_list_entries{source="up"} 10');
  expect(metrics).toMatch(/mailrisk_list_age_seconds\{source="up"\} \d+/);
  expect(metrics).toContain('mailrisk_list_sync_failures_total{source="up",reason="status"} 1');
});

it("warns once a day while a source's data in force is older than 7 days", async () => {
  server.publish("/up.txt", { body: madeUpList(10) });
  await schedule(3600).tick();
  server.publish("/up.txt", { body: "x", status: 500 });
  const later = schedule(3600);
  now = new Date(START.getTime() + 7 * DAY_MS - 60_000);
  await later.tick();
  expect(warnings.filter((w) => w.includes("older than 7 days"))).toHaveLength(0);
  now = new Date(START.getTime() + 7 * DAY_MS + 60_000);
  await later.tick();
  now = new Date(now.getTime() + 3600_000);
  await later.tick();
  expect(warnings.filter((w) => w.includes("older than 7 days"))).toHaveLength(1);
  now = new Date(now.getTime() + DAY_MS);
  await later.tick();
  expect(warnings.filter((w) => w.includes("older than 7 days"))).toHaveLength(2);
});

it("never syncs with LIST_SYNC_INTERVAL off, but keeps the gauges", async () => {
  server.publish("/up.txt", { body: madeUpList(10) });
  const lists = schedule(null);
  await lists.tick();
  expect(server.hits("/up.txt")).toBe(0);
  expect(lists.states()).toEqual([]);
});

it("syncs before its sources are due when the database's list policy is not its LIST_SOURCES", async () => {
  server.publish("/up.txt", { body: madeUpList(10) });
  const lists = schedule(3600);
  await lists.tick();
  expect(await store.lists.policy()).toEqual({ sources: ["up"], setAt: START });
  now = new Date(START.getTime() + 60_000);
  await lists.tick();
  expect(server.hits("/up.txt")).toBe(1);
  // Another process's sync set other sources: this one, the one that syncs, sets its own again.
  await store.lists.setPolicy(["elsewhere"], now);
  await lists.tick();
  expect(server.hits("/up.txt")).toBe(2);
  expect(await store.lists.policy()).toEqual({ sources: ["up"], setAt: now });
});
