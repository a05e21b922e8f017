/**
 * What accounts leave behind is pruned (docs/accounts.md): a session unused for
 * SESSION_TTL, expired codes and links, old failed log-ins; live ones stay.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { logInWithPassword } from "../../src/operator/log-in.js";
import { issueCode, issueLink, peekLink } from "../../src/operator/one-time-secrets.js";
import { sessionOf, startSession } from "../../src/service/accounts/account-access.js";

const START = new Date("2026-01-01T00:00:00Z");
const DAY = 86_400_000;

describe.each(DATABASE_KINDS)("account leftovers on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  it("deletes idle sessions, expired tickets and old failures, and keeps the rest", async () => {
    const { account } = await db.store.accounts.createAccount({
      email: "ann@example.com",
      passwordHash: null,
      role: "member",
      plan: "free",
      now: START,
    });
    const idle = await startSession(db.store, account.id, START);
    const later = new Date(START.getTime() + 20 * DAY);
    const fresh = await startSession(db.store, account.id, later);
    await issueCode(db.store, "signup", "bob@example.com", START);
    const link = await issueLink(
      db.store,
      "invite",
      "cy@example.com",
      {},
      new Date(START.getTime() + 30 * DAY),
    );
    // A failed log-in counts for the account and network, the network, and the account.
    await logInWithPassword(db.store, {
      email: "nobody@example.com",
      password: "wrong",
      network: "192.0.2.0/24",
      now: START,
      canMail: false,
    });

    const now = new Date(START.getTime() + 31 * DAY);
    const cutoffs = { now, idleSince: new Date(now.getTime() - 30 * DAY), countedBefore: START };
    // The idle session, the expired code, the code's mail budget and the failed log-in's
    // three counts.
    expect(await db.store.housekeeping.pruneAccountLeftovers(cutoffs, 100)).toBe(6);
    expect(await sessionOf(db.store, idle.token, now, 365 * DAY, 365 * DAY)).toBeUndefined();
    expect((await sessionOf(db.store, fresh.token, now, 30 * DAY, 30 * DAY))?.account.id).toBe(account.id);
    expect(await db.store.housekeeping.pruneAccountLeftovers(cutoffs, 100)).toBe(0);
    expect((await peekLink(db.store, link, now))?.email).toBe("cy@example.com");
  });
});
