/**
 * An operator's override set or removed by another process (the CLI, another instance)
 * purges the records it decides at once, but an instance takes it into its snapshot
 * only on its next reload (up to 30 s later). Meanwhile its checks still see the old
 * overrides and save what they find. Those records must not outlive the reload: they
 * were fresh for RECORD_TTL (a day), so a wrong block the operator lifted would have
 * come back for a day. Over the wire (loopback DNS) through the real service on a real
 * SQLite store, on the clock of the test.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disposableWorld, disposableWorldLists } from "../../harness/disposable-world.js";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { liveChecker } from "../../harness/live-service.js";
import { Zones } from "../../harness/zones.js";
import { loadConfig } from "../../src/config.js";
import { parseDomain } from "../../src/core/input.js";
import type { CheckRecord } from "../../src/core/record.js";
import type { Checker } from "../../src/service/checker.js";
import { applyOverride, removeOverride } from "../../src/service/overrides.js";
import { openStore, type Store } from "../../src/store/index.js";

const world = disposableWorld({ services: 3, legitimate: 20, strays: 0 });
const START = new Date("2026-03-01T00:00:00Z");
let dir: string;
let dns: DnsTestServer;
let store: Store;
let now = START;
const clock = () => now;
/** Seconds since the start on the test's clock. */
const at = (seconds: number) => {
  now = new Date(START.getTime() + seconds * 1000);
};

function newChecker(): Checker {
  return liveChecker(store, { dnsAddress: dns.address, clock, lists: disposableWorldLists(world) });
}

async function check(checker: Checker, domain: string): Promise<CheckRecord> {
  const parsed = parseDomain(domain);
  if (!parsed.ok) throw new Error(domain);
  return (await checker.check(parsed.input)).record;
}

const legitimate = [...world.legitimate].filter(([, setup]) => setup === "own-server").map(([d]) => d);
if (legitimate.length < 2) throw new Error("the world has too few domains on their own servers");
const [customer, bystander] = legitimate as [string, string];
const looksOkay = { block: false, text: "Looks okay" };
const denied = { block: true, text: "Blocked by the operator", reason: "Operator override" };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mailrisk-override-race-"));
  dns = await startDnsServer(new Zones(world.fixture));
  store = await openStore(loadConfig({ DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}` }).database);
  await store.migrate();
});

afterAll(async () => {
  await store?.close();
  await dns?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("a check racing an override change", () => {
  it("answers the old way only until its instance reloads, then never again", async () => {
    at(0);
    const instance = newChecker();
    expect(await check(instance, bystander)).toMatchObject(looksOkay); // snapshot loaded at 0 s

    // The CLI denies the domain: its record (none yet) is purged, the instance does not know.
    at(1);
    await applyOverride(store, {
      kind: "domain",
      value: customer,
      action: "deny",
      note: null,
      createdAt: now,
    });
    at(5);
    expect(await check(instance, customer)).toMatchObject(looksOkay); // the race: old overrides
    expect((await store.records.getRecord(customer))?.record).toMatchObject(looksOkay);

    // 31 s: the snapshot is old, a check reloads it; the reload sees the change.
    at(31);
    await check(instance, bystander);
    await instance.drain();
    expect(await store.records.getRecord(customer)).toBeUndefined();
    // Remembered until 35 s under the old overrides: not answered from memory.
    at(32);
    expect(await check(instance, customer)).toMatchObject(denied);
    const other = newChecker();
    expect(await check(other, customer)).toMatchObject(denied);

    // Removed again, and raced again: the block does not come back for a day either.
    at(40);
    expect(await removeOverride(store, "domain", customer)).toBe(true);
    at(45);
    expect(await check(instance, customer)).toMatchObject(denied); // snapshot of 31 s
    at(62);
    await check(instance, bystander);
    await instance.drain();
    at(63);
    expect(await check(instance, customer)).toMatchObject(looksOkay);
    expect(await check(other, customer)).toMatchObject(looksOkay);
    await Promise.all([instance.drain(), other.drain()]);
  }, 60_000);
});
