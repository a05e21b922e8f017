/**
 * The change signal commits with the change (docs/architecture.md, "Facts stored,
 * verdicts decided when answering"): every method that changes what servers remember
 * raises its topic in the change's own transaction. A committed change has moved its
 * counter; a change whose counter cannot be raised is not saved. On both databases.
 */
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { mxFacts } from "../../harness/sample-facts.js";
import { openDatabase } from "../../src/store/database.js";
import type { ChangeTopic, ListVersion, Store } from "../../src/store/index.js";

const NOW = new Date("2025-03-01T00:00:00Z");

function version(source: string, entries: string[]): ListVersion {
  return {
    source,
    hash: entries.join(","),
    url: `https://lists.test/${source}`,
    acceptedAt: NOW,
    entries: new Map(entries.map((entry) => [entry, NOW.getTime()])),
  };
}

/** A store with a plan, a key on it, an override, a saved record, a list with a previous version and an account's list. */
async function seeded(store: Store): Promise<{ keyId: string; widgetId: string; accountId: string }> {
  await store.plans.createPlan({ name: "team", quota: 10, periodDays: 30 });
  const { key } = await store.keys.createKey({ plan: "free", name: "shop", now: NOW });
  const widget = await store.keys.createKey({
    plan: "free",
    name: "widget",
    now: NOW,
    publishable: true,
    origins: ["https://shop.test"],
  });
  await store.overrides.setOverride({
    kind: "domain",
    value: "kept.test",
    action: "deny",
    note: null,
    createdAt: NOW,
  });
  await store.records.saveFacts("shop.test", mxFacts("shop.test"), NOW, false);
  await store.lists.acceptVersion(version("extra", ["a.test"]));
  await store.lists.acceptVersion(version("extra", ["a.test", "b.test"]));
  const { account } = await store.accounts.createAccount({
    email: "a@example.org",
    passwordHash: null,
    role: "member",
    plan: "free",
    now: NOW,
  });
  await store.accountLists.setEntry(account.id, { domain: "kept.test", action: "block", createdAt: NOW }, 10);
  return { keyId: key.id, widgetId: widget.key.id, accountId: account.id };
}

describe.each(DATABASE_KINDS)("on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  /** The change signal's table is gone: every raise fails, nothing else does. */
  async function breakTheSignal(): Promise<void> {
    const raw = await openDatabase(db.database.location, () => undefined);
    try {
      await sql`drop table changes`.execute(raw);
    } finally {
      await raw.destroy();
    }
  }

  it("moves the topic's counter with every committed change", async () => {
    const { store } = db;
    const { keyId, widgetId, accountId } = await seeded(store);
    const entry = { domain: "x.test", action: "allow", createdAt: NOW } as const;
    const changes: [ChangeTopic, () => Promise<unknown>][] = [
      ["keys", () => store.plans.updatePlan("team", { quota: 20 })],
      ["keys", () => store.keys.setKeyPlan(keyId, "team")],
      ["keys", () => store.keys.setKeyOrigins(widgetId, ["https://other.test"])],
      ["keys", () => store.keys.revokeKey(keyId, NOW)],
      [
        "overrides",
        () =>
          store.overrides.setOverride({
            kind: "domain",
            value: "x.test",
            action: "allow",
            note: null,
            createdAt: NOW,
          }),
      ],
      ["overrides", () => store.overrides.removeOverride("domain", "x.test")],
      ["records", () => store.records.purgeRecords(["shop.test"])],
      ["lists", () => store.lists.rollback("extra", false)],
      ["lists", () => store.lists.acceptVersion(version("extra", ["c.test"]))],
      ["lists", () => store.lists.setPolicy(["extra"], NOW)],
      ["lists", () => store.lists.removeSource("extra")],
      ["account_lists", () => store.accountLists.setEntry(accountId, entry, 10)],
      [
        "account_lists",
        () => store.accountLists.importEntries(accountId, [{ ...entry, action: "block" }], 10),
      ],
      ["account_lists", () => store.accountLists.removeEntry(accountId, "x.test")],
    ];
    for (const [topic, change] of changes) {
      const before = (await store.changes.versions()).get(topic) ?? 0;
      await change();
      expect((await store.changes.versions()).get(topic), `${topic}: ${change}`).toBe(before + 1);
    }
    await store.records.saveFacts("shop.test", mxFacts("shop.test"), NOW, false);
    const before = (await store.changes.versions()).get("records");
    await store.records.purgeAllRecords();
    expect((await store.changes.versions()).get("records")).toBe((before ?? 0) + 1);
  });

  it("keeps nothing of a change whose signal could not be raised", async () => {
    const { store } = db;
    const { keyId, widgetId, accountId } = await seeded(store);
    const listed = await store.accountLists.listEntries(accountId);
    await breakTheSignal();
    const failed = [
      store.plans.updatePlan("team", { quota: 20 }),
      store.keys.setKeyPlan(keyId, "team"),
      store.keys.setKeyOrigins(widgetId, ["https://other.test"]),
      store.keys.revokeKey(keyId, NOW),
      store.overrides.setOverride({
        kind: "domain",
        value: "x.test",
        action: "allow",
        note: null,
        createdAt: NOW,
      }),
      store.overrides.removeOverride("domain", "kept.test"),
      store.records.purgeRecords(["shop.test"]),
      store.records.purgeAllRecords(),
      store.lists.acceptVersion(version("extra", ["c.test"])),
      store.lists.rollback("extra", false),
      store.lists.setPolicy(["extra"], NOW),
      store.lists.removeSource("extra"),
      store.accountLists.setEntry(accountId, { domain: "x.test", action: "allow", createdAt: NOW }, 10),
      store.accountLists.importEntries(
        accountId,
        [{ domain: "x.test", action: "allow", createdAt: NOW }],
        10,
      ),
      store.accountLists.removeEntry(accountId, "kept.test"),
    ];
    for (const change of await Promise.allSettled(failed)) expect(change.status).toBe("rejected");
    expect((await store.plans.listPlans()).find((plan) => plan.name === "team")?.quota).toBe(10);
    expect(await store.keys.getKey(keyId)).toMatchObject({ plan: "free", revokedAt: null });
    expect(await store.keys.getKey(widgetId)).toMatchObject({ origins: ["https://shop.test"] });
    expect((await store.overrides.listOverrides()).map((o) => o.value)).toEqual(["kept.test"]);
    expect(await store.records.getFacts("shop.test")).toBeDefined();
    expect((await store.lists.versionsInForce(["extra"])).map((v) => v.hash)).toEqual(["a.test,b.test"]);
    expect(await store.lists.policy()).toBeUndefined();
    // The list and its version are as they were: no server would miss a change.
    expect(await store.accountLists.listEntries(accountId)).toEqual(listed);
  });
});
