/**
 * An operator's change and its audit entry commit together (docs/console.md "The audit
 * log"): when the entry cannot be written, the change is not made either; on both
 * databases.
 */
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { CLI_ACTOR } from "../../src/operator/audit.js";
import { revokeKey } from "../../src/operator/keys.js";
import { setOverride } from "../../src/operator/overrides.js";
import { openDatabase } from "../../src/store/database.js";

const RULES = { testNames: false };
let testStore: TestStore;
afterEach(() => testStore.cleanup());

/** Makes every audit write fail, as a full disk or a lost table would. */
async function breakTheAuditLog(): Promise<void> {
  const db = await openDatabase(testStore.database.location, () => {});
  try {
    await sql`drop table audit_log`.execute(db);
  } finally {
    await db.destroy();
  }
}

describe.each(DATABASE_KINDS)("a change and its audit entry (%s)", (kind) => {
  it("are written together: without the entry, the key stays unrevoked and no override is set", async () => {
    testStore = await openTestStore(kind);
    const { store } = testStore;
    const { key } = await store.keys.createKey({ plan: "free", now: new Date() });
    await revokeKey(store, key.id, new Date(), CLI_ACTOR);
    expect((await store.audit.search({ limit: 10 })).map((e) => e.action)).toEqual(["key.revoke"]);

    const { key: kept } = await store.keys.createKey({ plan: "free", now: new Date() });
    await breakTheAuditLog();
    await expect(revokeKey(store, kept.id, new Date(), CLI_ACTOR)).rejects.toThrow();
    expect((await store.keys.getKey(kept.id))?.revokedAt).toBeNull();
    const override = { kind: "domain", value: "spam-domain.com", action: "deny" } as const;
    await expect(setOverride(store, override, new Date(), RULES, CLI_ACTOR)).rejects.toThrow();
    expect(await store.overrides.listOverrides()).toEqual([]);
  });
});
