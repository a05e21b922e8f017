/**
 * The account service on SQLite and PostgreSQL: one mailbox holds one account whatever
 * its spelling (sign-up's store and invitations alike), and suspending a suspended account
 * (resuming an active one) changes nothing and records nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { inviteAccount, setAccountState } from "../../src/operator/accounts.js";
import { CLI_ACTOR } from "../../src/operator/audit.js";
import { refusalOf } from "../../src/operator/refusal.js";

const NOW = new Date("2026-03-01T10:00:00Z");
const LINKS = { signup: "invite" as const, publicUrl: null, signupPlan: "free", mailer: undefined };

describe.each(DATABASE_KINDS)("accounts on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
    await db.store.accounts.createAccount({
      email: "carol+a@gmail.com",
      passwordHash: null,
      role: "member",
      plan: "free",
      now: NOW,
    });
  });
  afterEach(() => db.cleanup());

  it("refuses a second account for the same mailbox, and an invitation to it", async () => {
    const second = db.store.accounts.createAccount({
      email: "c.a.r.o.l+b@gmail.com",
      passwordHash: null,
      role: "member",
      plan: "free",
      now: NOW,
    });
    await expect(second.catch((error: unknown) => refusalOf(error)?.code)).resolves.toBe("account_exists");
    const invited = inviteAccount(db.store, { email: "carol@googlemail.com" }, LINKS, NOW, CLI_ACTOR);
    await expect(invited.catch((error: unknown) => refusalOf(error)?.code)).resolves.toBe("account_exists");
    expect((await db.store.accounts.findMailbox("carol@gmail.com"))?.email).toBe("carol+a@gmail.com");
    // Another mailbox is another account.
    await inviteAccount(db.store, { email: "carol@example.com" }, LINKS, NOW, CLI_ACTOR);
  });

  it("records a suspension once: suspending a suspended account and resuming an active one record nothing", async () => {
    await setAccountState(db.store, "carol+a@gmail.com", "suspended", CLI_ACTOR);
    const again = await setAccountState(db.store, "carol+a@gmail.com", "suspended", CLI_ACTOR);
    expect(again.state).toBe("suspended");
    await setAccountState(db.store, "carol+a@gmail.com", "active", CLI_ACTOR);
    await setAccountState(db.store, "carol+a@gmail.com", "active", CLI_ACTOR);
    const entries = await db.store.audit.search({ limit: 10 });
    expect(entries.map((entry) => entry.action)).toEqual(["account.resume", "account.suspend"]);
  });
});
