/**
 * The traffic counters in the database (docs/console.md "Traffic"), on SQLite and
 * PostgreSQL: two instances' counts add up, the most seen names and the busiest keys and
 * accounts are ranked, a refund lowers the key's requests on the day it is given, and
 * housekeeping drops days beyond the retention.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { trafficStats } from "../../src/operator/stats.js";
import { TrafficCounter } from "../../src/service/checking/traffic-counter.js";
import { scheduleHousekeeping, TRAFFIC_RETENTION_DAYS } from "../../src/service/housekeeping-schedule.js";

const DAY = 86_400_000;
const NOW = new Date("2026-11-27T12:00:00Z");
const TODAY = new Date("2026-11-27T00:00:00Z");

describe.each(DATABASE_KINDS)("traffic counters on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  it("adds what two instances counted, ranks the names seen most, and prunes old days", async () => {
    const other = await db.openAnother();
    const counters = [new TrafficCounter(() => NOW.getTime()), new TrafficCounter(() => NOW.getTime())];
    const blocked = (domain: string, provider: string | null) => ({
      block: true,
      reason: provider ? "Disposable" : "Parked",
      domain,
      disposable_provider: provider,
    });
    for (const counter of counters) {
      counter.count("api", { block: false, reason: "ok", domain: "shop.example", disposable_provider: null });
      counter.count("api", blocked("mailinator.com", "mailinator.com"));
      counter.count("jobs", blocked("parked.example", null));
    }
    counters[1]?.count("pages", blocked("yopmail.com", "yopmail.com"));
    await Promise.all([counters[0]?.flush(db.store.traffic), counters[1]?.flush(other.traffic)]);
    // A day past the retention, and one within it.
    await db.store.traffic.addCounts([
      {
        day: new Date(TODAY.getTime() - TRAFFIC_RETENTION_DAYS * DAY - DAY),
        kind: "surface",
        name: "api",
        count: 9,
      },
      { day: new Date(TODAY.getTime() - 3 * DAY), kind: "surface", name: "bulk", count: 7 },
    ]);

    const stats = await trafficStats(db.store, NOW);
    expect(stats.days.at(-1)).toEqual({
      day: "2026-11-27",
      checks: { api: 4, bulk: 0, jobs: 2, pages: 1, total: 7 },
      blocked: 5,
      blocks: { Disposable: 3, Parked: 2 },
    });
    expect(stats.days.at(-4)?.checks.bulk).toBe(7);
    expect(stats.top_disposable_providers).toEqual([
      { provider: "mailinator.com", count: 2 },
      { provider: "yopmail.com", count: 1 },
    ]);
    expect(stats.top_blocked_domains).toEqual([
      { domain: "mailinator.com", count: 2 },
      { domain: "parked.example", count: 2 },
      { domain: "yopmail.com", count: 1 },
    ]);

    const housekeeping = scheduleHousekeeping({
      housekeeping: db.store.housekeeping,
      recordTtlSeconds: 86_400,
      sessionTtlSeconds: 86_400,
      clock: () => NOW,
    });
    expect((await housekeeping.runOnce()).traffic).toBe(1);
    await housekeeping.stop();
    expect((await trafficStats(db.store, NOW)).totals.checks).toMatchObject({ bulk: 7, total: 14 });
  });

  it("ranks the keys and accounts that used the most, a refund subtracted on the day it was given", async () => {
    await db.store.plans.createPlan({ name: "team", quota: 1000, periodDays: 30 });
    const yesterday = new Date(NOW.getTime() - DAY);
    const operatorKey = await db.store.keys.createKey({ plan: "team", name: "shop", now: yesterday });
    const { account, secret } = await db.store.accounts.createAccount({
      email: "ann@example.com",
      passwordHash: null,
      role: "member",
      plan: "team",
      now: yesterday,
    });
    const counted = await db.store.usage.authorize(operatorKey.secret, yesterday, 30);
    await db.store.usage.authorize(secret, yesterday, 20);
    await db.store.usage.flushDailyUsage();
    // 25 of the operator key's units given back today (a cancelled job's items never checked).
    await db.store.usage.refund(
      { ...(counted?.key ?? operatorKey.key), account: null } as never,
      counted?.quota.periodStart ?? yesterday,
      25,
      NOW,
    );
    await db.store.keys.revokeKey(operatorKey.key.id, NOW);

    const stats = await trafficStats(db.store, NOW);
    expect(stats.top_keys).toEqual([
      expect.objectContaining({ account_id: account.id, revoked: false, used: 20 }),
      expect.objectContaining({ id: operatorKey.key.id, name: "shop", revoked: true, used: 5 }),
    ]);
    expect(stats.top_accounts).toEqual([{ id: account.id, email: "ann@example.com", used: 20 }]);
    const usage = await db.store.usage.keyUsage(operatorKey.key.id, NOW);
    expect(usage?.current.used).toBe(5);
    const perDay = await db.store.usage.dailyUsage([operatorKey.key.id], yesterday);
    expect(perDay.map((row) => row.used)).toEqual([30, -25]);
  });
});
