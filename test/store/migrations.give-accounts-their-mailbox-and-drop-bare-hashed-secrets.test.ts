/**
 * Migration 0019 (docs/accounts.md "One account per mailbox", docs/security.md), on both
 * databases: accounts made before it get their mailbox, the first of two that share one
 * keeping it and the later keeping its own address (both log in as before); sessions get
 * their start; codes and links stored as bare sha-256 are gone; the server's HMAC key is
 * made once.
 */
import { type Migration, Migrator, sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../../harness/databases.js";
import { openDatabase } from "../../src/store/database.js";
import type { Store } from "../../src/store/index.js";
import { openStore } from "../../src/store/index.js";
import { migrations } from "../../src/store/migrations/index.js";

const ADDING = "0019_account_secrets";

describe.each(DATABASE_KINDS)("migration 0019 on %s", (kind) => {
  let database: TestDatabase;
  let store: Store | undefined;

  beforeEach(async () => {
    database = await createTestDatabase(kind);
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    await database.drop();
  });

  /** The database as 0018 left it: two accounts of one mailbox, a session, a bare-hashed ticket. */
  async function before(): Promise<void> {
    const db = await openDatabase(database.location, () => {});
    const names = Object.keys(migrations);
    const earlier = Object.fromEntries(
      names.slice(0, names.indexOf(ADDING)).map((name) => [name, migrations[name] as Migration]),
    );
    await new Migrator({ db, provider: { getMigrations: async () => earlier } }).migrateToLatest();
    await sql`insert into accounts (id, email, password_hash, role, plan, state, created_at) values
      ('acc_1', 'carol+a@gmail.com', null, 'member', 'free', 'active', 1),
      ('acc_2', 'c.arol@gmail.com', null, 'member', 'free', 'active', 2),
      ('acc_3', 'dan@example.com', null, 'member', 'free', 'active', 3)`.execute(db);
    await sql`insert into sessions (hash, account_id, csrf, last_seen_at) values ('s1', 'acc_3', 'c', 500)`.execute(
      db,
    );
    await sql`insert into account_tickets (hash, kind, email, code_hash, tries_left, expires_at, payload)
      values ('t1', 'reset', 'dan@example.com', 'h', 5, 99999999999999, '{}')`.execute(db);
    await db.destroy();
  }

  it("gives each account its mailbox, the later of a shared one its own address, and drops the old tickets", async () => {
    await before();
    store = await openStore(database.location);
    const applied = await store.migrate();
    expect(applied).toContain(ADDING);
    // 0020 (the log-in guard) drops the old lock's columns of these accounts after 0019 indexed their mailbox.
    expect(applied.indexOf("0020_login_guard")).toBeGreaterThan(applied.indexOf(ADDING));
    expect((await store.accounts.findMailbox("carol@gmail.com"))?.id).toBe("acc_1");
    expect((await store.accounts.findMailbox("c.arol@gmail.com"))?.id).toBe("acc_2");
    expect((await store.accounts.findMailbox("dan@example.com"))?.id).toBe("acc_3");
    expect((await store.accounts.findLogin("c.arol@gmail.com"))?.id).toBe("acc_2");
    expect(await store.accounts.peekTicket("t1", new Date(1000))).toBeUndefined();
    const session = await store.accounts.findSession("s1", new Date(1000), new Date(0), new Date(0));
    expect(session?.createdAt.getTime()).toBe(500);
    const key = await store.accounts.serverSecret("ticket_hmac");
    expect(key).toMatch(/^[\w-]{43}$/);
    expect(await store.migrate()).toEqual([]);
    expect(await store.accounts.serverSecret("ticket_hmac")).toBe(key);
  });
});
