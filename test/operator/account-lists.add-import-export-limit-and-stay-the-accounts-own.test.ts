/**
 * An account's own list through its service, on both databases: a domain is normalised
 * as the operator's overrides are and its entry's action replaced; a removal of another
 * account's entry (or an unknown one) is `not_found`; the list holds at most
 * MAX_ACCOUNT_LIST_ENTRIES, an import beyond it or with one bad line changes nothing; the
 * export reads back as the same list; every change is audited with the account as actor;
 * deleting the account deletes its list. A page of the list is of its own entries, by
 * domain, searched as text (`%` and `_` included), the last page for one past it. The
 * lists held in memory drop only the list whose version moved.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import {
  addAccountListEntry,
  exportAccountList,
  importAccountList,
  listAccountList,
  MAX_ACCOUNT_LIST_CSV_BYTES,
  MAX_ACCOUNT_LIST_ENTRIES,
  pageAccountList,
  removeAccountListEntry,
} from "../../src/operator/account-lists.js";
import { searchAudit } from "../../src/operator/audit.js";
import { Refusal, refusalOf } from "../../src/operator/refusal.js";
import { AccountListsInMemory } from "../../src/service/accounts/account-lists-in-memory.js";
import type { Account } from "../../src/store/index.js";

const NOW = new Date("2026-11-26T12:00:00+00:00");
const RULES = { testNames: false };

/** The refusal's code a promise rejects with. */
async function refusedWith(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return refusalOf(error)?.code ?? `not a refusal: ${String(error)}`;
  }
  return undefined;
}

describe.each(DATABASE_KINDS)("an account's list on %s", (kind) => {
  let db: TestStore;
  let a: Account;
  let b: Account;
  beforeEach(async () => {
    db = await openTestStore(kind);
    const make = async (email: string) =>
      (
        await db.store.accounts.createAccount({
          email,
          passwordHash: null,
          role: "member",
          plan: "free",
          now: NOW,
        })
      ).account;
    a = await make("a@example.org");
    b = await make("b@example.org");
  });
  afterEach(() => db.cleanup());

  it("normalises the domain, replaces an entry's action and keeps each account's list its own", async () => {
    const added = await addAccountListEntry(
      db.store,
      a,
      { domain: " Shop.EXAMPLE.com. ", action: "Block" },
      NOW,
      RULES,
    );
    expect(added).toEqual({
      domain: "shop.example.com",
      action: "block",
      created_at: "2026-11-26T12:00:00+00:00",
    });
    await addAccountListEntry(db.store, a, { domain: "shop.example.com", action: "allow" }, NOW, RULES);
    expect(await listAccountList(db.store, a)).toEqual([{ ...added, action: "allow" }]);
    expect(await listAccountList(db.store, b)).toEqual([]);

    expect(
      await refusedWith(
        addAccountListEntry(db.store, a, { domain: "not a domain", action: "block" }, NOW, RULES),
      ),
    ).toBe("invalid_domain");
    expect(
      await refusedWith(
        addAccountListEntry(db.store, a, { domain: "x.example.com", action: "deny" }, NOW, RULES),
      ),
    ).toBe("invalid_body");
    // B cannot remove A's entry: it has none of that domain.
    expect(await refusedWith(removeAccountListEntry(db.store, b, "shop.example.com", RULES))).toBe(
      "not_found",
    );
    expect(await listAccountList(db.store, a)).toHaveLength(1);
    await removeAccountListEntry(db.store, a, "SHOP.example.com", RULES);
    expect(await listAccountList(db.store, a)).toEqual([]);
    expect(await refusedWith(removeAccountListEntry(db.store, a, "shop.example.com", RULES))).toBe(
      "not_found",
    );

    const audit = await searchAudit(db.store, { actor: "a@example.org" });
    expect(audit.map((entry) => [entry.action, entry.entity_kind, entry.entity_id, entry.detail])).toEqual([
      ["account_list.remove", "account_list", a.id, { domain: "shop.example.com" }],
      ["account_list.add", "account_list", a.id, { domain: "shop.example.com", action: "allow" }],
      ["account_list.add", "account_list", a.id, { domain: "shop.example.com", action: "block" }],
    ]);
  });

  it("imports a domain,action CSV all or nothing and exports it back", async () => {
    await addAccountListEntry(db.store, a, { domain: "kept.example.com", action: "block" }, NOW, RULES);
    const bad =
      'domain,action\r\none.example.com,block\r\n"two.example.com",allow\r\nthree..example.com,block\r\n';
    const refused = await importAccountList(db.store, a, bad, NOW, RULES).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Refusal);
    expect((refused as Refusal).message).toMatch(/^line 4: /);
    expect((await listAccountList(db.store, a)).map((entry) => entry.domain)).toEqual(["kept.example.com"]);

    const csv =
      '\ufeffdomain,action\none.example.com,BLOCK\n\n"two.example.com",allow\nkept.example.com,allow\n';
    expect(await importAccountList(db.store, a, csv, NOW, RULES)).toEqual({ imported: 3 });
    const exported = await exportAccountList(db.store, a);
    expect(exported).toBe(
      "domain,action\r\nkept.example.com,allow\r\none.example.com,block\r\ntwo.example.com,allow\r\n",
    );
    // The export reads back as the same list, into another account.
    await importAccountList(db.store, b, exported, NOW, RULES);
    expect(await exportAccountList(db.store, b)).toBe(exported);
    expect(
      (await searchAudit(db.store, { action: "account_list.import" })).map((entry) => entry.detail),
    ).toEqual([{ entries: 3 }, { entries: 3 }]);
  });

  it("holds at most the limit: one more domain is refused, a replacement is not, an import beyond changes nothing", async () => {
    const full = Array.from({ length: MAX_ACCOUNT_LIST_ENTRIES }, (_, i) => `d${i}.example.com,block`).join(
      "\n",
    );
    expect(await importAccountList(db.store, a, full, NOW, RULES)).toEqual({
      imported: MAX_ACCOUNT_LIST_ENTRIES,
    });
    expect(
      await refusedWith(
        addAccountListEntry(db.store, a, { domain: "one-more.example.com", action: "block" }, NOW, RULES),
      ),
    ).toBe("too_many_entries");
    await addAccountListEntry(db.store, a, { domain: "d0.example.com", action: "allow" }, NOW, RULES);
    expect(await refusedWith(importAccountList(db.store, a, "one-more.example.com,block", NOW, RULES))).toBe(
      "too_many_entries",
    );
    const tooMany = `${full}\nd${MAX_ACCOUNT_LIST_ENTRIES}.example.com,block`;
    expect(await refusedWith(importAccountList(db.store, b, tooMany, NOW, RULES))).toBe("too_many_entries");
    expect(await listAccountList(db.store, b)).toEqual([]);
    const list = await listAccountList(db.store, a);
    expect(list).toHaveLength(MAX_ACCOUNT_LIST_ENTRIES);
    expect(list.find((entry) => entry.domain === "d0.example.com")?.action).toBe("allow");
  }, 60_000);

  it("pages its own entries by domain, searched as text, and counts them", async () => {
    const csv = Array.from({ length: 25 }, (_, n) => `d${String(n).padStart(2, "0")}.example.com,block`);
    await importAccountList(db.store, a, [...csv, "zz.example.org,allow"].join("\n"), NOW, RULES);
    await importAccountList(db.store, b, "d00.example.com,allow\n", NOW, RULES);
    const domains = (page: { entries: { domain: string }[] }) => page.entries.map((entry) => entry.domain);

    const second = await pageAccountList(db.store, a, { search: "", page: 2 }, 10);
    expect({ ...second, entries: domains(second) }).toEqual({
      entries: Array.from({ length: 10 }, (_, n) => `d${10 + n}.example.com`),
      total: 26,
      matching: 26,
      search: "",
      page: 2,
      pages: 3,
    });
    const past = await pageAccountList(db.store, a, { search: "", page: 9 }, 10);
    expect([past.page, domains(past)]).toEqual([
      3,
      [
        "d20.example.com",
        "d21.example.com",
        "d22.example.com",
        "d23.example.com",
        "d24.example.com",
        "zz.example.org",
      ],
    ]);

    const found = await pageAccountList(db.store, a, { search: " D1 ", page: 1 }, 4);
    expect([found.total, found.matching, found.pages, found.search]).toEqual([26, 10, 3, "D1"]);
    expect(domains(found)).toEqual([
      "d10.example.com",
      "d11.example.com",
      "d12.example.com",
      "d13.example.com",
    ]);
    // As patterns, `d_1` and `d%0` would match d01… and d00…: as text, nothing.
    expect((await pageAccountList(db.store, a, { search: "d_1", page: 1 }, 10)).matching).toBe(0);
    const none = await pageAccountList(db.store, a, { search: "d%0", page: 1 }, 10);
    expect([none.matching, none.pages, none.entries]).toEqual([0, 1, []]);
    expect(domains(await pageAccountList(db.store, b, { search: "", page: 1 }, 10))).toEqual([
      "d00.example.com",
    ]);
    expect(await db.store.accountLists.countEntries(a.id)).toBe(26);
  });

  it("refuses a CSV over its bytes as body_too_large, naming the limit", async () => {
    const line = "a-long-enough-domain-name-for-the-test.example.com,block\n";
    const csv = line.repeat(Math.ceil((MAX_ACCOUNT_LIST_CSV_BYTES + 1) / line.length));
    const refused = importAccountList(db.store, a, csv, NOW, RULES);
    await expect(refused).rejects.toThrow("larger than the import's limit of 3 MiB");
    expect(await refusedWith(importAccountList(db.store, a, csv, NOW, RULES))).toBe("body_too_large");
    expect(await listAccountList(db.store, a)).toEqual([]);
  });

  it("refuses a CSV with a line over CSV_MAX_RECORD_BYTES as body_too_large, naming the line, before parsing it", async () => {
    const csv = `domain,action\nshop.example.com,block\n${"x".repeat(100_000)},block\n`;
    const refused = importAccountList(db.store, a, csv, NOW, RULES);
    await expect(refused).rejects.toThrow("line 3 is longer than 65536 bytes (CSV_MAX_RECORD_BYTES)");
    expect(await refusedWith(importAccountList(db.store, a, csv, NOW, RULES))).toBe("body_too_large");
    expect(await listAccountList(db.store, a)).toEqual([]);
  });

  it("is deleted with its account", async () => {
    await addAccountListEntry(db.store, a, { domain: "shop.example.com", action: "block" }, NOW, RULES);
    expect(await db.store.accounts.deleteAccount(a.id)).toBe(true);
    expect(await db.store.accountLists.listEntries(a.id)).toEqual({ version: 0, entries: [] });
  });

  it("is held in memory and dropped only when its own version moves", async () => {
    const held = new AccountListsInMemory(db.store.accountLists);
    await addAccountListEntry(db.store, a, { domain: "example.com", action: "block" }, NOW, RULES);
    const listA = await held.load(a.id);
    const listB = await held.load(b.id);
    expect(listA.entryFor("mail.example.com", "example.com")).toEqual({
      value: "example.com",
      action: "deny",
    });
    expect(listA.entryFor("example.net", "example.net")).toBeUndefined();
    expect(listB.size).toBe(0);

    await addAccountListEntry(db.store, b, { domain: "example.net", action: "allow" }, NOW, RULES);
    await held.reloadAfterChange();
    expect(held.held(a.id)).toBe(listA);
    expect(held.held(b.id)).toBeUndefined();
    expect((await held.load(b.id)).entryFor("example.net", "example.net")).toEqual({
      value: "example.net",
      action: "allow",
    });
  });
});
