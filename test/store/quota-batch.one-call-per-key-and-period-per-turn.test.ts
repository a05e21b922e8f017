import { describe, expect, it } from "vitest";
import type { AuthenticatedKey, QuotaState } from "../../src/store/index.js";
import { batchQuotaCounting, type CountRequests } from "../../src/store/quota-batch.js";

const CREATED = new Date("2024-03-01T00:00:00.000Z");
const DAY = 86_400_000;

function key(id: string): AuthenticatedKey {
  return {
    id,
    prefix: "mr_x",
    name: null,
    plan: "p",
    createdAt: CREATED,
    revokedAt: null,
    publishable: false,
    origins: [],
    accountId: null,
    expiresAt: null,
    account: null,
    quota: 100,
    periodDays: 30,
  };
}

/** Records every call and answers with `remaining` counting down per call. */
function recordingCounter() {
  const calls: { id: string; units: readonly number[]; now: Date }[] = [];
  const count: CountRequests = async (k, now, units) => {
    calls.push({ id: k.id, units, now });
    let used = 0;
    return units.map((n): QuotaState => {
      used += n;
      return { allowed: true, limit: 100, remaining: 100 - used, used, periodStart: CREATED, resetAt: now };
    });
  };
  return { calls, count };
}

describe("batchQuotaCounting", () => {
  it("counts the requests of one turn with one call per key, each request getting its own state", async () => {
    const { calls, count } = recordingCounter();
    const batch = batchQuotaCounting(count);
    const now = new Date(CREATED.getTime() + DAY);
    const states = await Promise.all(["a", "b", "a", "a", "b"].map((id) => batch.count(key(id), now, 1)));
    expect(calls.map(({ id, units }) => [id, units])).toEqual([
      ["a", [1, 1, 1]],
      ["b", [1, 1]],
    ]);
    expect(states.map((state) => state.remaining)).toEqual([99, 99, 98, 97, 98]);
  });

  it("passes each request's units on, in arrival order, and gives each its own state", async () => {
    const { calls, count } = recordingCounter();
    const batch = batchQuotaCounting(count);
    const now = new Date(CREATED.getTime() + DAY);
    const requests: [string, number][] = [
      ["a", 5],
      ["b", 1],
      ["a", 1],
      ["a", 10],
    ];
    const states = await Promise.all(requests.map(([id, units]) => batch.count(key(id), now, units)));
    expect(calls.map(({ id, units }) => [id, units])).toEqual([
      ["a", [5, 1, 10]],
      ["b", [1]],
    ]);
    expect(states.map((state) => state.remaining)).toEqual([95, 99, 94, 84]);
  });

  it("keeps requests of different periods apart and starts a new batch in the next turn", async () => {
    const { calls, count } = recordingCounter();
    const batch = batchQuotaCounting(count);
    const inFirst = new Date(CREATED.getTime() + DAY);
    const inSecond = new Date(CREATED.getTime() + 31 * DAY);
    await Promise.all([batch.count(key("a"), inFirst, 1), batch.count(key("a"), inSecond, 1)]);
    await batch.count(key("a"), inFirst, 1);
    expect(calls.map(({ units, now }) => [units, now])).toEqual([
      [[1], inFirst],
      [[1], inSecond],
      [[1], inFirst],
    ]);
  });

  it("tells a request added as a plain object its state, counted in the same call as the promises of its turn", async () => {
    const { calls, count } = recordingCounter();
    const batch = batchQuotaCounting(count);
    const now = new Date(CREATED.getTime() + DAY);
    const told: (number | null | string)[] = [];
    const waiting = (units: number) => ({
      key: key("a"),
      now,
      units,
      counted: (state: QuotaState) => told.push(state.remaining),
      failed: (error: unknown) => told.push(String(error)),
    });
    batch.add(waiting(2));
    const promised = batch.count(key("a"), now, 1);
    batch.add(waiting(3));
    expect(told).toEqual([]);
    expect((await promised).remaining).toBe(97);
    expect(told).toEqual([98, 94]);
    expect(calls.map(({ id, units }) => [id, units])).toEqual([["a", [2, 1, 3]]]);
  });

  it("fails every request of a group whose counting fails, and only those", async () => {
    const batch = batchQuotaCounting(async (k, now, units) => {
      if (k.id === "down") throw new Error("database unreachable");
      return units.map(() => ({
        allowed: true,
        limit: 1,
        remaining: 0,
        used: 1,
        periodStart: now,
        resetAt: now,
      }));
    });
    const results = await Promise.allSettled([
      batch.count(key("down"), CREATED, 1),
      batch.count(key("up"), CREATED, 1),
      batch.count(key("down"), CREATED, 1),
    ]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "fulfilled", "rejected"]);
  });
});
