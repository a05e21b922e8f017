/**
 * One-time secrets (docs/security.md "One-time secrets"), on SQLite and PostgreSQL: a
 * code's tries are spent in one statement (40 parallel guesses judge at most 5, and the
 * right code after them is refused); a link is used once however many posts race for it;
 * a mailbox gets at most 3 codes and 5 mails an hour; no sha-256 of a code or token is
 * anywhere in the database.
 */
import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { inviteAccount } from "../../src/operator/accounts.js";
import { CLI_ACTOR } from "../../src/operator/audit.js";
import {
  CODE_TRIES,
  issueCode,
  issueLink,
  mailBudget,
  spendCode,
  spendLink,
} from "../../src/operator/one-time-secrets.js";
import { requestResetCode, resetPasswordByCode, useLink } from "../../src/operator/passwords.js";

const NOW = new Date("2026-03-01T10:00:00Z");
const PASSWORD = "a long unusual password";

/** Every value of every table, as text: what a dump of the database would show. */
async function dumpDatabase(db: TestStore): Promise<string> {
  const { location } = db.database;
  if (location.dialect === "sqlite") {
    const sqlite = new Database(location.path, { readonly: true });
    try {
      const tables = sqlite.prepare("select name from sqlite_master where type = 'table'").all() as {
        name: string;
      }[];
      return tables
        .map(({ name }) => JSON.stringify(sqlite.prepare(`select * from "${name}"`).all()))
        .join("\n");
    } finally {
      sqlite.close();
    }
  }
  const client = new pg.Client({ connectionString: location.connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public'",
    );
    const dumps: string[] = [];
    for (const { table_name } of rows)
      dumps.push(JSON.stringify((await client.query(`select * from "${table_name}"`)).rows));
    return dumps.join("\n");
  } finally {
    await client.end();
  }
}

describe.each(DATABASE_KINDS)("one-time secrets on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
    await db.store.accounts.createAccount({
      email: "ann@example.com",
      passwordHash: null,
      role: "member",
      plan: "free",
      now: NOW,
    });
  });
  afterEach(() => db.cleanup());

  it("judges at most 5 of 40 parallel guesses of a code, and refuses the right code after them", async () => {
    const code = (await issueCode(db.store, "reset", "ann@example.com", NOW)) ?? "";
    expect(code).toMatch(/^\d{8}$/);
    const wrong = (i: number) => String((Number(code) + 1 + i) % 100_000_000).padStart(8, "0");
    const judged: number[] = [];
    const spend = db.store.accounts.spendCode.bind(db.store.accounts);
    // Count the statements that judged a guess (a row returned), whatever the guess.
    db.store.accounts.spendCode = async (...args) => {
      const result = await spend(...args);
      if (result) judged.push(1);
      return result;
    };
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        resetPasswordByCode(db.store, {
          email: "ann@example.com",
          code: wrong(i),
          password: PASSWORD,
          now: NOW,
        }),
      ),
    );
    expect(answers.every((answer) => answer.kind === "wrong_code")).toBe(true);
    expect(judged.length).toBeLessThanOrEqual(CODE_TRIES);
    const right = await resetPasswordByCode(db.store, {
      email: "ann@example.com",
      code,
      password: PASSWORD,
      now: NOW,
    });
    expect(right.kind).toBe("wrong_code");
    expect((await db.store.accounts.findLogin("ann@example.com"))?.passwordHash).toBeNull();
  });

  it("spends a right code once: a second use of it is refused", async () => {
    const code = (await issueCode(db.store, "reset", "ann@example.com", NOW)) ?? "";
    const [first, second] = await Promise.all([
      spendCode(db.store, "reset", "ann@example.com", code, NOW),
      spendCode(db.store, "reset", "ann@example.com", code, NOW),
    ]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
  });

  it("lets exactly one of 10 parallel uses of a link set the password", async () => {
    const token = await issueLink(db.store, "reset", "ann@example.com", {}, NOW);
    const uses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        useLink(db.store, { token, password: `${PASSWORD} ${i}`, now: NOW }),
      ),
    );
    expect(uses.filter((use) => use.kind === "set")).toHaveLength(1);
    expect(uses.filter((use) => use.kind === "gone")).toHaveLength(9);
    expect(await spendLink(db.store, token, NOW)).toBeUndefined();
  });

  it("makes one account of 10 parallel uses of an invitation", async () => {
    const links = { signup: "invite" as const, publicUrl: null, signupPlan: "free", mailer: undefined };
    const link = await inviteAccount(db.store, { email: "bob@example.com" }, links, NOW, CLI_ACTOR);
    const token = link.url.split("/invite/")[1] ?? "";
    const uses = await Promise.all(
      Array.from({ length: 10 }, () => useLink(db.store, { token, password: PASSWORD, now: NOW })),
    );
    expect(uses.filter((use) => use.kind === "set")).toHaveLength(1);
    const accepted = await db.store.audit.search({ action: "account.invite_accepted", limit: 10 });
    expect(accepted).toHaveLength(1);
  });

  it("keeps a live code as it was: asking again sends nothing new", async () => {
    const first = await issueCode(db.store, "signup", "new@example.com", NOW);
    expect(first).toMatch(/^\d{8}$/);
    expect(await issueCode(db.store, "signup", "new@example.com", NOW)).toBeUndefined();
    expect(await spendCode(db.store, "signup", "new@example.com", first ?? "", NOW)).toBe(true);
  });

  it("sends one mailbox at most 3 codes and 5 mails an hour, its tags and dots counted together", async () => {
    const later = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
    const codes = [];
    // Each code expires (15 minutes) before the next is asked for.
    for (let i = 0; i < 4; i++)
      codes.push(
        await issueCode(db.store, i % 2 ? "reset" : "signup", `carol+${i}@gmail.com`, later(16 * i)),
      );
    expect(codes.filter(Boolean)).toHaveLength(3);
    expect(await mailBudget(db.store, "c.a.r.o.l@gmail.com", later(50))).toEqual({ allowed: true });
    // Refused with the seconds left in the hour its first code opened.
    expect(await mailBudget(db.store, "carol@gmail.com", later(51))).toEqual({
      allowed: false,
      retryAfterSeconds: 9 * 60,
    });
    // A new hour, a new budget.
    expect(await issueCode(db.store, "signup", "carol@gmail.com", later(70))).toMatch(/^\d{8}$/);
  });

  it("stores no sha-256 of a code or a link's token, and never the secret itself", async () => {
    const mailed: string[] = [];
    await requestResetCode(db.store, "ann@example.com", NOW, (_to, _subject, body) => mailed.push(body));
    const code = /\b(\d{8})\b/.exec(mailed[0] ?? "")?.[1] ?? "";
    expect(code).toMatch(/^\d{8}$/);
    const token = await issueLink(db.store, "reset", "ann@example.com", {}, NOW);
    const dump = await dumpDatabase(db);
    for (const secret of [code, token]) {
      expect(dump).not.toContain(createHash("sha256").update(secret).digest("hex"));
      expect(dump).not.toContain(secret);
    }
  });

  it("refuses a code of 10,000 digits and a token of the wrong length without spending anything", async () => {
    const code = (await issueCode(db.store, "reset", "ann@example.com", NOW)) ?? "";
    for (let i = 0; i < 10; i++)
      expect(
        await resetPasswordByCode(db.store, {
          email: "ann@example.com",
          code: "1".repeat(10_000),
          password: PASSWORD,
          now: NOW,
        }),
      ).toEqual({ kind: "malformed_code" });
    expect(await useLink(db.store, { token: "x".repeat(31), password: PASSWORD, now: NOW })).toEqual({
      kind: "gone",
    });
    expect(
      (await resetPasswordByCode(db.store, { email: "ann@example.com", code, password: PASSWORD, now: NOW }))
        .kind,
    ).toBe("set");
  });
});
