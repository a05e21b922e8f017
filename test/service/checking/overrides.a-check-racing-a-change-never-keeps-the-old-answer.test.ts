/**
 * An operator's override set or removed by another process (the CLI, another instance)
 * reaches an instance when its snapshot reloads: at once when the change signal tells
 * it (`reloadSources`), else on the reload a check starts once the snapshot is 30 s old.
 * Meanwhile its checks still see the old overrides and save what they found. Verdicts
 * are decided when answering, from the stored facts: once the snapshot reloaded, the
 * next answer is the override's (also for a check whose look-up was running when it
 * was set), from the same facts, with no purge and no look-up again, and the old
 * answer never comes back for RECORD_TTL. Over the wire (loopback DNS) through the real
 * service on a real SQLite store, on the clock of the test. The slow domain's delay, the
 * resolver's deadline and the waits are written for a quiet machine and stretched by the
 * machine's pace (harness/machine-pace.ts).
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { TEST_NAMES_ON } from "../../../harness/config.js";
import { disposableWorld, disposableWorldLists } from "../../../harness/disposable-world.js";
import { type DnsTestServer, startDnsServer } from "../../../harness/dns-server.js";
import { API_LANE, liveChecker } from "../../../harness/live-service.js";
import { startPace } from "../../../harness/machine-pace.js";
import { Zones } from "../../../harness/zones.js";
import { loadConfig } from "../../../src/config.js";
import { parseDomain } from "../../../src/core/input.js";
import { formatTimestamp } from "../../../src/core/record.js";
import { applyOverride } from "../../../src/service/checking/apply-override.js";
import type { Checker, CheckResult } from "../../../src/service/checking/checker.js";
import { openStore, type Store } from "../../../src/store/index.js";

const world = disposableWorld({ services: 3, legitimate: 20, strays: 0 });
const START = new Date("2026-03-01T00:00:00Z");
/** The machine's pace when the file starts. */
const pace = startPace();
/** How long the DNS server waits before answering for the slow domain: its look-up is still running when the override is set. */
const SLOW_MS = 400 * pace.atStart;
let dir: string;
let dns: DnsTestServer;
let store: Store;
let now = START;
const clock = () => now;
/** Seconds since the start on the test's clock. */
const at = (seconds: number) => {
  now = new Date(START.getTime() + seconds * 1000);
};
const stamp = (seconds: number) => formatTimestamp(new Date(START.getTime() + seconds * 1000));

function newChecker(): Checker {
  return liveChecker(store, {
    dnsAddress: dns.address,
    // The live service's 2 s deadline, above SLOW_MS on a loaded machine too.
    dnsTimeoutMs: Math.ceil(2000 * pace.atStart),
    clock,
    lists: disposableWorldLists(world),
  });
}

async function check(checker: Checker, domain: string): Promise<CheckResult> {
  const parsed = parseDomain(domain, TEST_NAMES_ON);
  if (!parsed.ok) throw new Error(domain);
  return checker.check(parsed.input, API_LANE);
}

const legitimate = [...world.legitimate].filter(([, setup]) => setup === "own-server").map(([d]) => d);
if (legitimate.length < 3) throw new Error("the world has too few domains on their own servers");
const [customer, bystander, slow] = legitimate as [string, string, string];
const looksOkay = { block: false, text: "Looks okay" };
const denied = { block: true, text: "Blocked by the operator", reason: "Operator override" };

/**
 * Checks the domain until the answer matches, while the reload a check started runs
 * (the clock stands still: no other reload comes due); never, if none was started.
 */
async function answersOnceReloaded(checker: Checker, domain: string, expected: object): Promise<void> {
  await vi.waitFor(async () => expect((await check(checker, domain)).record).toMatchObject(expected), {
    timeout: pace.bound(2000),
    interval: 5,
  });
}

const deny = (domain: string) =>
  applyOverride(store, { kind: "domain", value: domain, action: "deny", note: null, createdAt: now });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mailrisk-override-race-"));
  const names = world.fixture.names;
  names[slow] = { ...names[slow], delay: SLOW_MS };
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
  it("answers the old way only until its instance reloads, then never again, from the same facts", async () => {
    at(0);
    const instance = newChecker();
    expect((await check(instance, bystander)).record).toMatchObject(looksOkay); // snapshot loaded at 0 s

    // The CLI denies the domain; the instance does not know.
    at(1);
    await deny(customer);
    at(5);
    expect((await check(instance, customer)).record).toMatchObject(looksOkay); // the race: old overrides
    expect(await store.records.getFacts(customer)).toMatchObject({ block: false });
    const lookups = dns.queries.count(customer);
    expect(lookups).toBeGreaterThan(0);

    // 31 s: the snapshot is old, a check starts a reload (not waited for); the reload sees
    // the change. Memory still holds the domain (until 35 s) as decided under the old
    // overrides, yet once the reload is done the answer is the override's.
    at(31);
    await check(instance, bystander);
    await answersOnceReloaded(instance, customer, denied);
    at(32);
    const first = await check(instance, customer);
    expect([first.cache, first.record]).toEqual(["hit", expect.objectContaining(denied)]);
    expect(first.record.block_status_changed_at).toBe(stamp(31));
    expect(dns.queries.count(customer)).toBe(lookups); // nothing purged, nothing looked up again
    expect(await store.records.getFacts(customer)).toMatchObject({ block: true });
    const other = newChecker();
    expect((await check(other, customer)).record).toMatchObject({
      ...denied,
      block_status_changed_at: stamp(31),
    });

    // Removed again, and raced again: the block does not come back for a day either.
    at(40);
    expect(await store.overrides.removeOverride("domain", customer)).toBe(true);
    at(45);
    expect((await check(instance, customer)).record).toMatchObject(denied); // snapshot of 31 s
    at(62);
    await Promise.all([check(instance, bystander), check(other, bystander)]);
    await answersOnceReloaded(instance, customer, looksOkay);
    await answersOnceReloaded(other, customer, looksOkay);
    at(63);
    for (const checker of [instance, other]) {
      expect((await check(checker, customer)).record).toMatchObject({
        ...looksOkay,
        block_status_changed_at: stamp(62),
      });
    }
    expect(dns.queries.count(customer)).toBe(lookups);
    await Promise.all([instance.drain(), other.drain()]);
  }, 60_000);

  it("answers with an override set while the domain was being looked up, once the snapshot reloaded", async () => {
    at(100);
    const instance = newChecker();
    await check(instance, bystander); // snapshot loaded
    let lookedUp = false;
    const pending = check(instance, slow).finally(() => {
      lookedUp = true;
    });
    // Set by another process while the look-up runs; the change signal reloads the snapshot.
    await deny(slow);
    await instance.reloadSources?.("overrides");
    expect(lookedUp).toBe(false);
    const answered = await pending;
    expect(answered.cache).toBe("miss");
    expect(answered.record).toMatchObject({ ...denied, block_status_changed_at: stamp(100) });
    expect(await store.records.getFacts(slow)).toMatchObject({ block: true });
    at(101);
    expect((await check(newChecker(), slow)).record).toMatchObject({
      ...denied,
      block_status_changed_at: stamp(100),
    });
    await instance.drain();
  }, 60_000);
});
