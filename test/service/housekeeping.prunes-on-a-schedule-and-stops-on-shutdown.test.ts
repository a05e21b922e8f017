// The runs on a real timer are waited for within a quiet machine's time, stretched by the
// machine's pace (harness/machine-pace.ts).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { startPace } from "../../harness/machine-pace.js";
import {
  EVIDENCE_RETENTION_DAYS,
  pruneCutoffs,
  RECORD_GRACE_DAYS,
  scheduleHousekeeping,
  USAGE_RETENTION_DAYS,
  WEBHOOK_EVENT_RETENTION_DAYS,
} from "../../src/service/housekeeping-schedule.js";
import type { HousekeepingRepository } from "../../src/store/index.js";

const DAY = 86_400_000;
const START = new Date("2024-01-01T00:00:00Z");
const TTL_SECONDS = 86_400;

describe.each(DATABASE_KINDS)("housekeeping runs on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  it("prunes old usage periods, long-expired records and unseen evidence as the clock moves, in batches", async () => {
    const { key, secret } = await db.store.keys.createKey({ plan: "free", now: START });
    await db.store.usage.authorize(secret, START);
    for (let i = 0; i < 5; i++) {
      const domain = `d${i}.example`;
      const routing = {
        status: "mx" as const,
        hosts: [{ host: `mx.${domain}`, priority: 10, ips: ["192.0.2.1"] }],
        nameServers: [`ns1.${domain}`],
        addresses: [],
      };
      await db.store.records.saveFacts(domain, { routing, createdAt: null }, START, false);
    }
    const evidence = {
      mxHosts: ["mx.shared.example"],
      mxIps: ["192.0.2.1"],
      nameServers: [],
      listed: "unknown" as const,
      service: null,
    };
    await db.store.infrastructure.recordEvidence([
      { evidence: { ...evidence, domain: "old.example" }, seenAt: START },
      { evidence: { ...evidence, domain: "renewed.example" }, seenAt: START },
      { evidence: { ...evidence, domain: "renewed.example" }, seenAt: new Date(START.getTime() + 100 * DAY) },
    ]);
    let now = START;
    const housekeeping = scheduleHousekeeping({
      housekeeping: db.store.housekeeping,
      recordTtlSeconds: TTL_SECONDS,
      sessionTtlSeconds: 30 * 86_400,
      clock: () => now,
      firstRunMs: 3_600_000,
      batchSize: 2,
    });
    housekeeping.start();
    try {
      // Records are kept RECORD_TTL + 30 days; the first period (30 days) is kept 400 days after it ends.
      now = new Date(START.getTime() + TTL_SECONDS * 1000 + RECORD_GRACE_DAYS * DAY);
      expect(await housekeeping.runOnce()).toEqual({
        usage: 0,
        records: 0,
        evidence: 0,
        webhookEvents: 0,
        accounts: 0,
        jobs: 0,
        traffic: 0,
      });
      now = new Date(now.getTime() + 1);
      expect(await housekeeping.runOnce()).toEqual({
        usage: 0,
        records: 5,
        evidence: 0,
        webhookEvents: 0,
        accounts: 0,
        jobs: 0,
        traffic: 0,
      });

      // Evidence is kept 400 days after it was last seen: the domain seen again on day 100 keeps its rows.
      now = new Date(START.getTime() + EVIDENCE_RETENTION_DAYS * DAY + 1);
      expect(await housekeeping.runOnce()).toEqual({
        usage: 0,
        records: 0,
        evidence: 2,
        webhookEvents: 0,
        accounts: 0,
        jobs: 0,
        traffic: 0,
      });
      expect(await db.store.infrastructure.domainsOn("mx_host", "mx.shared.example", 5)).toEqual([
        "renewed.example",
      ]);

      now = new Date(START.getTime() + (30 + USAGE_RETENTION_DAYS) * DAY);
      expect(await housekeeping.runOnce()).toEqual({
        usage: 1,
        records: 0,
        evidence: 0,
        webhookEvents: 0,
        accounts: 0,
        jobs: 0,
        traffic: 0,
      });
      expect((await db.store.usage.keyUsage(key.id, now))?.periods).toEqual([]);
    } finally {
      await housekeeping.stop();
    }
  });
});

it("computes its cut-offs from the clock and RECORD_TTL", () => {
  expect(pruneCutoffs(new Date(1000 * DAY), 3600)).toEqual({
    usageEndedBefore: new Date((1000 - USAGE_RETENTION_DAYS) * DAY),
    recordsCheckedBefore: new Date((1000 - RECORD_GRACE_DAYS) * DAY - 3_600_000),
    evidenceSeenBefore: new Date((1000 - EVIDENCE_RETENTION_DAYS) * DAY),
    webhookEventsFinishedBefore: new Date((1000 - WEBHOOK_EVENT_RETENTION_DAYS) * DAY),
  });
});

/** A repository whose every call deletes a full batch, so a run ends only at its bound or on stop. */
function endlessRepository() {
  const calls: string[] = [];
  let release: () => void = () => {};
  const repository: HousekeepingRepository = {
    async pruneUsage(_cutoff, limit) {
      calls.push("usage");
      return limit;
    },
    async pruneRecords(_cutoff, limit) {
      calls.push("records");
      await new Promise<void>((resolve) => {
        release = resolve;
        setTimeout(resolve, 5);
      });
      return limit;
    },
    async pruneEvidence(_cutoff, limit) {
      calls.push("evidence");
      return limit;
    },
    async pruneWebhookEvents(_cutoff, limit) {
      calls.push("webhookEvents");
      return limit;
    },
    async pruneAccountLeftovers(_cutoffs, limit) {
      calls.push("accounts");
      return limit;
    },
    async pruneJobs(_now, _abandoned, limit) {
      calls.push("jobs");
      return limit;
    },
    async pruneTraffic(_before, limit) {
      calls.push("traffic");
      return limit;
    },
  };
  return { calls, repository, release: () => release() };
}

it("runs on its timer, bounds the batches of a run, and stops between batches", async () => {
  const { calls, repository } = endlessRepository();
  const housekeeping = scheduleHousekeeping({
    housekeeping: repository,
    recordTtlSeconds: TTL_SECONDS,
    sessionTtlSeconds: 30 * 86_400,
    firstRunMs: 1,
    intervalMs: 60_000,
    batchSize: 10,
  });
  const pace = startPace();
  housekeeping.start();
  // The usage pass is bounded (MAX_BATCHES_PER_RUN), then the records pass runs until stopped.
  await vi.waitFor(() => expect(calls).toContain("records"), { timeout: pace.bound(50), interval: 1 });
  expect(calls.filter((call) => call === "usage")).toHaveLength(100);
  await housekeeping.stop();
  const afterStop = calls.length;
  await new Promise((resolve) => setTimeout(resolve, 30));
  expect(calls.length).toBe(afterStop);
});

it("logs a failed run and keeps its schedule", async () => {
  let attempts = 0;
  const warnings: unknown[] = [];
  const housekeeping = scheduleHousekeeping({
    housekeeping: {
      async pruneUsage() {
        attempts += 1;
        throw new Error("database unreachable");
      },
      async pruneRecords() {
        return 0;
      },
      async pruneEvidence() {
        return 0;
      },
      async pruneWebhookEvents() {
        return 0;
      },
      async pruneAccountLeftovers() {
        return 0;
      },
      async pruneJobs() {
        return 0;
      },
      async pruneTraffic() {
        return 0;
      },
    },
    recordTtlSeconds: TTL_SECONDS,
    sessionTtlSeconds: 30 * 86_400,
    logger: { info: () => {}, warn: (...args: unknown[]) => warnings.push(args) } as never,
    firstRunMs: 1,
    intervalMs: 5,
  });
  const pace = startPace();
  housekeeping.start();
  await vi.waitFor(() => expect(attempts).toBeGreaterThanOrEqual(2), {
    timeout: pace.bound(60),
    interval: 1,
  });
  await housekeeping.stop();
  expect(warnings.length).toBe(attempts);
});
