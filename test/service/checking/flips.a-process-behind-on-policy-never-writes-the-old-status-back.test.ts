/**
 * Two processes on one database, each with its checker and change watcher as `serve`
 * wires them, on both databases. The operator denies a watched domain; the process that
 * has reloaded the override records the flip (one `domain.blocked` event). The other,
 * whose watcher has not polled yet, reads the domain's stored status and still decides
 * the old verdict: it must not write that back, which would raise a `domain.unblocked`
 * event and then another `domain.blocked` once it reloads. Once it has, it agrees.
 * And a process whose sources are ahead of its watcher (it reloaded before the watcher's
 * reading, as its own list sync does) records its flip at once and answers the time it
 * recorded, never the time the old status began.
 */

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TEST_NAMES_ON } from "../../../harness/config.js";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../../../harness/databases.js";
import { type DnsTestServer, startDnsServer } from "../../../harness/dns-server.js";
import { API_LANE } from "../../../harness/live-service.js";
import { mailZones } from "../../../harness/mail-zones.js";
import { loadConfig } from "../../../src/config.js";
import { parseInput } from "../../../src/core/input.js";
import { type ChangeWatcher, changeWatcherOf } from "../../../src/service/checking/change-watcher.js";
import type { Checker } from "../../../src/service/checking/checker.js";
import { CANARY_DOMAINS, createChecker } from "../../../src/service/checking/create-checker.js";
import { openStore, type Store } from "../../../src/store/index.js";

const DOMAIN = "watched-shop.com";
/** Long enough that only the test's own polls run. */
const NO_TIMER = 3_600_000;

interface Process {
  store: Store;
  checker: Checker;
  changes: ChangeWatcher;
}

describe.each(DATABASE_KINDS)("a flip on %s", (kind) => {
  let dns: DnsTestServer;
  let database: TestDatabase;
  const processes: Process[] = [];

  /** A process as `serve` wires its checker and its change watcher (polled by the test only). */
  async function startProcess(): Promise<Process> {
    const store = await openStore(database.location);
    const config = loadConfig({
      TEST_NAMES: "on",
      DNS_SERVERS: dns.address,
      AGE_LOOKUP: "off",
      DATABASE_URL: database.url,
    });
    const applied: { changes?: ChangeWatcher } = {};
    const checker = createChecker({
      config,
      store,
      policy: {
        policyVersion: () => applied.changes?.policyVersion(),
        settle: async () => applied.changes?.settle(),
      },
      recordsFlips: true,
    });
    const changes = changeWatcherOf(store, checker, undefined, NO_TIMER);
    void changes.start();
    applied.changes = changes;
    await changes.settle();
    const started = { store, checker, changes };
    processes.push(started);
    return started;
  }

  async function answer({ checker }: Process) {
    const parsed = parseInput(DOMAIN, TEST_NAMES_ON);
    if (!parsed.ok) throw new Error(parsed.problem.detail);
    return (await checker.check(parsed.input, API_LANE)).record;
  }

  /** The operator denies the domain. */
  async function deny(store: Store): Promise<void> {
    await store.overrides.setOverride({
      kind: "domain",
      value: DOMAIN,
      action: "deny",
      note: null,
      createdAt: new Date(),
    });
  }

  async function block(process: Process): Promise<boolean> {
    return (await answer(process)).block;
  }

  beforeEach(async () => {
    dns = await startDnsServer(mailZones([...CANARY_DOMAINS, DOMAIN], "own-server"));
    database = await createTestDatabase(kind);
    const store = await openStore(database.location);
    await store.migrate();
    await store.close();
  });
  afterEach(async () => {
    for (const { store, checker, changes } of processes.splice(0)) {
      await changes.stop();
      await checker.drain();
      await store.close();
    }
    await dns.close();
    await database.drop();
  });

  it("is recorded once: a process behind on the policy never writes the old status back", async () => {
    const first = await startProcess();
    const { store } = first;
    await store.webhooks.createWebhook({
      url: "http://127.0.0.1:9/hook",
      secret: "a-secret-of-enough-length",
      events: ["domain.blocked", "domain.unblocked"],
      now: new Date(),
    });
    expect(await block(first)).toBe(false);
    await store.records.markAnswered([DOMAIN], new Date(), new Date(0));
    const behind = await startProcess();

    await deny(store);
    await first.changes.poll();
    expect(await block(first)).toBe(true);

    // Not reloaded yet: it answers the old verdict, but records nothing.
    await block(behind);
    expect((await store.records.getFacts(DOMAIN))?.block).toBe(true);

    await behind.changes.poll();
    expect(await block(behind)).toBe(true);
    const events = (await store.webhooks.deliveries(null, 10)).filter((event) => event.domain === DOMAIN);
    expect(events.map((event) => event.type)).toEqual(["domain.blocked"]);
  });
  it("is recorded at once by a process whose sources are ahead of its watcher, with the time it answers", async () => {
    const first = await startProcess();
    const { store } = first;
    expect(await block(first)).toBe(false);
    const allowedSince = (await store.records.getFacts(DOMAIN))?.changedAt as Date;
    await new Promise((resolve) => setTimeout(resolve, 1100));

    await deny(store);
    // The sources reloaded, the watcher not yet read: as after the process's own list sync.
    await first.checker.reloadSources?.("overrides");
    const blocked = await answer(first);
    expect(blocked.block).toBe(true);
    const stored = await store.records.getFacts(DOMAIN);
    expect(stored?.block).toBe(true);
    expect(stored?.changedAt.getTime()).toBeGreaterThan(allowedSince.getTime());
    expect(new Date(blocked.block_status_changed_at).getTime()).toBe(
      Math.floor((stored?.changedAt.getTime() as number) / 1000) * 1000,
    );
    expect(await answer(first)).toMatchObject({
      block: true,
      block_status_changed_at: blocked.block_status_changed_at,
    });
  });
});
