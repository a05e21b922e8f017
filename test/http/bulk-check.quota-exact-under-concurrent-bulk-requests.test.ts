/**
 * `POST /v2/bulk` counts one unit per item, all or nothing, exactly under concurrency
 * (docs/api.md "Keys, plans, quotas"): parallel bulk requests over real sockets to two instances sharing
 * one database, on SQLite and PostgreSQL, never count more than the quota, and every
 * request either counts all its items or none.
 */

import { afterEach, describe, expect, it } from "vitest";
import { configWith } from "../../harness/config.js";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { buildApp } from "../../src/app.js";
import { fakeChecker, START } from "./helpers.js";

describe.each(DATABASE_KINDS)("on %s", (kind) => {
  let testStore: TestStore | undefined;
  const apps: Awaited<ReturnType<typeof buildApp>>[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
    await testStore?.cleanup();
  });

  it("answers 30 parallel bulk requests of 3 items on a quota of 50 with exactly 16 × 200 and 14 × 429", async () => {
    testStore = await openTestStore(kind);
    await testStore.store.plans.createPlan({ name: "bulk-50", quota: 50, periodDays: 30 });
    const { secret } = await testStore.store.keys.createKey({ plan: "bulk-50", now: START });
    const bases: string[] = [];
    for (const store of [testStore.store, await testStore.openAnother()]) {
      // Every request admitted at once: this test is about the quota, not the bulk gate.
      const app = await buildApp({
        store,
        checker: fakeChecker(),
        logger: false,
        clock: () => START,
        config: configWith({ bulkConcurrentPerKey: 30, bulkConcurrentTotal: 30 }),
      });
      apps.push(app);
      bases.push(await app.listen({ host: "127.0.0.1", port: 0 }));
    }
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        fetch(`${bases[i % 2]}/v2/bulk`, {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
          body: JSON.stringify({ items: [`a${i}.com`, `b${i}.com`, `c${i}@d${i}.com`] }),
        }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(16);
    expect(statuses.filter((status) => status === 429)).toHaveLength(14);
    const remaining = responses
      .filter((response) => response.status === 200)
      .map((response) => Number(response.headers.get("x-ratelimit-requests-remaining")))
      .sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 16 }, (_, i) => 2 + 3 * i));
    for (const response of responses) {
      const body = (await response.json()) as { results?: unknown[] };
      if (response.status === 200) expect(body.results).toHaveLength(3);
    }
    const usage = await testStore.store.usage.authorize(secret, START, 0);
    expect(usage?.quota.used).toBe(48);
    // The two units left take a request of two items, not one of three.
    const three = await fetch(`${bases[0]}/v2/bulk`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ items: ["x.com", "y.com", "z.com"] }),
    });
    expect([three.status, three.headers.get("x-ratelimit-requests-remaining")]).toEqual([429, "2"]);
    await three.arrayBuffer();
  });
});
