/**
 * `mailrisk accounts set-plan` and `list --search` (docs/accounts.md "Roles and states"):
 * the account and its keys move to the plan, which its keys then count against; an
 * unknown plan or account exits 1 and changes nothing, a missing argument exits 2; the
 * search finds by a part of the email, newest first.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { run } from "../../src/cli/accounts-command.js";
import type { Store } from "../../src/store/index.js";
import { openStore } from "../../src/store/index.js";

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase("sqlite");
});
afterEach(() => database.drop());

async function accounts(...args: string[]) {
  const cli = createTestCli(database.url);
  const code = await run(args, cli.ctx);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(database.location);
  try {
    await store.migrate();
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Ann, then Bob a day later, each with the first key an account gets; Ann's secret. */
async function twoAccounts(): Promise<string> {
  return withStore(async (store) => {
    await store.plans.createPlan({ name: "partner", quota: 500, periodDays: 30 });
    const email = { passwordHash: null, role: "member", plan: "free" } as const;
    const ann = await store.accounts.createAccount({
      ...email,
      email: "ann@shop.example",
      now: new Date("2025-01-01T00:00:00Z"),
    });
    await store.accounts.createAccount({
      ...email,
      email: "bob@example.org",
      now: new Date("2025-01-02T00:00:00Z"),
    });
    return ann.secret;
  });
}

describe("accounts set-plan", () => {
  it("moves the account and its keys to the plan, whose quota its key then has", async () => {
    const secret = await twoAccounts();
    const moved = await accounts("set-plan", "Ann@Shop.Example", "partner");
    expect(moved).toMatchObject({ code: 0, stderr: "" });
    expect(moved.stdout).toMatch(/^Moved ann@shop\.example \(acc_\w+\): member, plan partner, active/);
    await withStore(async (store) => {
      const ann = await store.accounts.findLogin("ann@shop.example");
      expect((await store.keys.accountKeys(ann?.id ?? "")).map((key) => key.plan)).toEqual(["partner"]);
      expect((await store.usage.authorize(secret, new Date()))?.key).toMatchObject({
        plan: "partner",
        quota: 500,
      });
      expect((await store.audit.search({ limit: 10 })).map((entry) => entry.action)).toEqual([
        "account.set_plan",
      ]);
    });
  });

  it("exits 1 for an unknown plan or account and 2 without a plan, changing nothing", async () => {
    await twoAccounts();
    const unknownPlan = await accounts("set-plan", "ann@shop.example", "gold");
    expect(unknownPlan.code).toBe(1);
    expect(unknownPlan.stderr).toContain('unknown plan "gold"');
    const unknownAccount = await accounts("set-plan", "cat@example.net", "partner");
    expect(unknownAccount.code).toBe(1);
    expect(unknownAccount.stderr).toContain('unknown account "cat@example.net"');
    const usage = await accounts("set-plan", "ann@shop.example");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("accounts set-plan needs an account id or email and a plan");
    expect((await accounts("set-plan", "ann@shop.example", "partner", "free")).code).toBe(2);
    await withStore(async (store) => {
      expect((await store.accounts.findLogin("ann@shop.example"))?.plan).toBe("free");
      expect(await store.audit.search({ limit: 10 })).toEqual([]);
    });
  });
});

describe("accounts list", () => {
  it("lists newest first, and with --search those whose email contains the text", async () => {
    await twoAccounts();
    const all = await accounts("list");
    expect(all.code).toBe(0);
    expect(
      all.stdout
        .split("\n")
        .slice(1, 3)
        .map((line) => line.split(/\s+/)[1]),
    ).toEqual(["bob@example.org", "ann@shop.example"]);
    const found = await accounts("list", "--search", "SHOP", "--json");
    expect(JSON.parse(found.stdout).map((a: { email: string }) => a.email)).toEqual(["ann@shop.example"]);
    expect(JSON.parse((await accounts("list", "--search", "%", "--json")).stdout)).toEqual([]);
    expect((await accounts("list", "--search")).code).toBe(2);
  });
});
