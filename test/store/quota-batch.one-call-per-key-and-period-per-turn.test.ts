import { describe, expect, it } from "vitest";
import { batchQuotaCounting, type CountRequests } from "../../src/store/quota-batch.js";
import type { AuthenticatedKey, QuotaState } from "../../src/store/types.js";

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
    quota: 100,
    periodDays: 30,
  };
}

/** Records every call and answers with `remaining` counting down per call. */
function recordingCounter() {
  const calls: { id: string; count: number; now: Date }[] = [];
  const count: CountRequests = async (k, now, n) => {
    calls.push({ id: k.id, count: n, now });
    return Array.from(
      { length: n },
      (_, i): QuotaState => ({
        allowed: true,
        limit: 100,
        remaining: 100 - i - 1,
        periodStart: CREATED,
        resetAt: now,
      }),
    );
  };
  return { calls, count };
}

describe("batchQuotaCounting", () => {
  it("counts the requests of one turn with one call per key, each request getting its own state", async () => {
    const { calls, count } = recordingCounter();
    const countRequest = batchQuotaCounting(count);
    const now = new Date(CREATED.getTime() + DAY);
    const states = await Promise.all(["a", "b", "a", "a", "b"].map((id) => countRequest(key(id), now)));
    expect(calls.map(({ id, count: n }) => [id, n])).toEqual([
      ["a", 3],
      ["b", 2],
    ]);
    expect(states.map((state) => state.remaining)).toEqual([99, 99, 98, 97, 98]);
  });

  it("keeps requests of different periods apart and starts a new batch in the next turn", async () => {
    const { calls, count } = recordingCounter();
    const countRequest = batchQuotaCounting(count);
    const inFirst = new Date(CREATED.getTime() + DAY);
    const inSecond = new Date(CREATED.getTime() + 31 * DAY);
    await Promise.all([countRequest(key("a"), inFirst), countRequest(key("a"), inSecond)]);
    await countRequest(key("a"), inFirst);
    expect(calls.map(({ count: n, now }) => [n, now])).toEqual([
      [1, inFirst],
      [1, inSecond],
      [1, inFirst],
    ]);
  });

  it("fails every request of a group whose counting fails, and only those", async () => {
    const countRequest = batchQuotaCounting(async (k, now, n) => {
      if (k.id === "down") throw new Error("database unreachable");
      return Array.from({ length: n }, () => ({
        allowed: true,
        limit: 1,
        remaining: 0,
        periodStart: now,
        resetAt: now,
      }));
    });
    const results = await Promise.allSettled([
      countRequest(key("down"), CREATED),
      countRequest(key("up"), CREATED),
      countRequest(key("down"), CREATED),
    ]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "fulfilled", "rejected"]);
  });
});
