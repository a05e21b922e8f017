import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";

const DAY = 86_400_000;
const CREATED = new Date("2024-01-10T12:34:56.789Z");
const at = (ms: number) => new Date(CREATED.getTime() + ms);

describe.each(DATABASE_KINDS)("quota periods on %s", (kind) => {
  let db: TestStore;
  let secret: string;
  beforeEach(async () => {
    db = await openTestStore(kind);
    ({ secret } = await db.store.keys.createKey({ plan: "free", now: CREATED }));
  });
  /** One request at `now`, answered by its quota state. */
  const request = async (now: Date) => (await db.store.usage.authorize(secret, now))?.quota;
  afterEach(() => db.cleanup());

  it("refuses the 1001st request of a free key's period and allows the first of the next", async () => {
    const inPeriod = at(3 * DAY);
    for (let batch = 0; batch < 20; batch++) {
      const states = await Promise.all(Array.from({ length: 50 }, () => request(inPeriod)));
      expect(states.every((s) => s?.allowed)).toBe(true);
    }

    expect(await request(inPeriod)).toEqual({
      allowed: false,
      limit: 1000,
      remaining: 0,
      used: 1000,
      periodStart: CREATED,
      resetAt: at(30 * DAY),
    });
    expect(await request(at(30 * DAY - 1))).toMatchObject({ allowed: false });

    expect(await request(at(30 * DAY))).toEqual({
      allowed: true,
      limit: 1000,
      remaining: 999,
      used: 1,
      periodStart: at(30 * DAY),
      resetAt: at(60 * DAY),
    });
  });

  it("reports the period of the request's time, many periods after creation", async () => {
    expect(await request(at(95 * DAY + 5))).toEqual({
      allowed: true,
      limit: 1000,
      remaining: 999,
      used: 1,
      periodStart: at(90 * DAY),
      resetAt: at(120 * DAY),
    });
  });
});
