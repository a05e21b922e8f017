/**
 * The log-in guard's one-statement spends hold under concurrency on both databases
 * (docs/security.md "Log-in throttling", "Two-factor log-in"): of 40 parallel tries of
 * one account from one network exactly 10 are counted; one time step, one recovery code
 * and one pending log-in's end are each taken by exactly one of 10 parallel takers.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { ACCOUNT_NETWORK_RULE, NETWORK_RULE } from "../../src/operator/login-throttle.js";

const NOW = new Date("2026-01-01T00:00:00Z");

describe.each(DATABASE_KINDS)("the log-in guard's store on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  it("counts exactly 10 of 40 parallel tries, then refuses until the lock ends and starts again at one", async () => {
    const tries = await Promise.all(
      Array.from({ length: 40 }, () =>
        db.store.loginThrottle.countTry("an:x 192.0.2.0/24", ACCOUNT_NETWORK_RULE, NOW),
      ),
    );
    expect(tries.filter((t) => t.counted)).toHaveLength(10);
    const refused = tries.find((t) => !t.counted);
    expect(refused).toEqual({ counted: false, lockedUntil: new Date(NOW.getTime() + 15 * 60_000) });
    const after = new Date(NOW.getTime() + 15 * 60_000);
    expect(await db.store.loginThrottle.countTry("an:x 192.0.2.0/24", ACCOUNT_NETWORK_RULE, after)).toEqual({
      counted: true,
      failures: 1,
    });
  });

  it("makes a network wait 5 s more for each try over 20, at most 60 s, without starting again", async () => {
    const waits: number[] = [];
    let at = NOW.getTime();
    for (let i = 0; i < 40; i++) {
      const tried = await db.store.loginThrottle.countTry("n:198.51.100.0/24", NETWORK_RULE, new Date(at));
      expect(tried.counted).toBe(true);
      const until = await db.store.loginThrottle.lockedUntil("n:198.51.100.0/24", new Date(at));
      waits.push(until ? until.getTime() - at : 0);
      at += waits.at(-1) ?? 0;
    }
    expect(waits.slice(0, 19)).toEqual(Array(19).fill(0));
    expect(waits.slice(19, 24)).toEqual([5_000, 10_000, 15_000, 20_000, 25_000]);
    expect(Math.max(...waits)).toBe(60_000);
  });

  it("takes one time step, one recovery code and one pending log-in's end once among 10 parallel takers", async () => {
    const { account } = await db.store.accounts.createAccount({
      email: "ann@example.com",
      passwordHash: null,
      role: "member",
      plan: "free",
      now: NOW,
    });
    await db.store.twoFactor.savePending(account.id, "JBSWY3DPEHPK3PXP", new Date(NOW.getTime() + 60_000));
    const turned = await db.store.twoFactor.turnOn(account.id, {
      secret: "JBSWY3DPEHPK3PXP",
      recoveryHashes: ["h1", "h2"],
      now: NOW,
    });
    expect(turned).toBe(true);
    const ten = <T>(work: () => Promise<T>) => Promise.all(Array.from({ length: 10 }, work));
    expect((await ten(() => db.store.twoFactor.takeStep(account.id, 1000))).filter(Boolean)).toHaveLength(1);
    expect(await db.store.twoFactor.takeStep(account.id, 999)).toBe(false);
    expect(
      (await ten(() => db.store.twoFactor.spendRecoveryCode(account.id, "h1"))).filter(Boolean),
    ).toHaveLength(1);
    await db.store.twoFactor.savePendingLogin({
      hash: "p1",
      accountId: account.id,
      via: "totp",
      codeHash: null,
      triesLeft: 3,
      expiresAt: new Date(NOW.getTime() + 60_000),
    });
    expect((await ten(() => db.store.twoFactor.spendLoginTry("p1", NOW))).filter(Boolean)).toHaveLength(3);
    expect((await ten(() => db.store.twoFactor.endPendingLogin("p1"))).filter(Boolean)).toHaveLength(1);
  });
});
