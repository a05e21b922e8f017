/**
 * The change watcher on a real SQLite store: each poll reads the store's change counters
 * (raised by the store with every change of keys, overrides, records, lists or an account's
 * list) and calls the
 * handler of each topic whose counter moved, and only those; the first poll only sets
 * what was seen. `settle()` resolves once a change made before it holds here, also when
 * a poll that read the counters before the change is running. A failing read is reported
 * once per streak of failures, and the next poll that succeeds catches up.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mxFacts } from "../../../harness/sample-facts.js";
import { ChangeWatcher, changeWatcherOf } from "../../../src/service/checking/change-watcher.js";
import { policyVersion } from "../../../src/store/changes-types.js";
import type { ChangeTopic, Store } from "../../../src/store/index.js";
import { openStore } from "../../../src/store/index.js";

const AT = new Date("2026-03-01T00:00:00Z");
/** Long enough that only the test's own polls run. */
const NO_TIMER = 3_600_000;

let store: Store;
let watchers: ChangeWatcher[];
beforeEach(async () => {
  store = await openStore({ dialect: "sqlite", path: ":memory:" });
  await store.migrate();
  watchers = [];
});
afterEach(async () => {
  await Promise.all(watchers.map((watcher) => watcher.stop()));
  await store.close();
});

/** A watcher that logs the topics whose handlers ran, in order. */
function loggingWatcher(changes: Pick<Store["changes"], "versions"> = store.changes) {
  const ran: ChangeTopic[] = [];
  const errors: unknown[] = [];
  const watcher = new ChangeWatcher({
    changes,
    onChange: {
      keys: () => {
        ran.push("keys");
      },
      overrides: () => {
        ran.push("overrides");
      },
      lists: () => {
        ran.push("lists");
      },
      records: () => {
        ran.push("records");
      },
      account_lists: () => {
        ran.push("account_lists");
      },
    },
    onError: (error) => errors.push(error),
    pollMs: NO_TIMER,
  });
  watchers.push(watcher);
  return { watcher, ran, errors };
}

/** Stores facts of a domain and purges it: a purge that removed something raises `records`. */
async function purge(domain: string): Promise<void> {
  await store.records.saveFacts(domain, mxFacts(domain), AT, false);
  expect(await store.records.purgeRecords([domain])).toBe(1);
}

const denyOverride = (value: string) =>
  store.overrides.setOverride({ kind: "domain", value, action: "deny", note: null, createdAt: AT });

describe("ChangeWatcher", () => {
  it("takes the counters of its first poll as the baseline, calling nothing", async () => {
    await denyOverride("a.test");
    await store.records.purgeAllRecords();
    await store.plans.updatePlan("free", { quota: 5 });
    const { watcher, ran, errors } = loggingWatcher();
    await watcher.start();
    await watcher.poll();
    expect([ran, errors]).toEqual([[], []]);
  });

  it("calls only the handler of each topic whose counter moved, once per poll", async () => {
    const { watcher, ran } = loggingWatcher();
    await watcher.start();

    await denyOverride("a.test");
    await denyOverride("b.test");
    await watcher.poll();
    expect(ran).toEqual(["overrides"]);

    await purge("a.test");
    await watcher.poll();
    expect(ran).toEqual(["overrides", "records"]);

    const { key } = await store.keys.createKey({ plan: "free", now: AT });
    await watcher.poll(); // creating a key changes nothing any server remembers
    expect(ran).toEqual(["overrides", "records"]);

    await store.keys.revokeKey(key.id, AT);
    await store.overrides.removeOverride("domain", "a.test");
    await watcher.poll();
    expect(ran.slice(2).sort()).toEqual(["keys", "overrides"]);

    await watcher.poll();
    expect(ran).toHaveLength(4);

    const { account } = await store.accounts.createAccount({
      email: "a@example.org",
      passwordHash: null,
      role: "member",
      plan: "free",
      now: AT,
    });
    await watcher.poll(); // a new account changes nothing any server remembers
    expect(ran).toHaveLength(4);
    await store.accountLists.setEntry(account.id, { domain: "a.test", action: "block", createdAt: AT }, 10);
    await watcher.poll();
    expect(ran.slice(4)).toEqual(["account_lists"]);
  });

  it("holds the policy version of overrides and lists only once their reload is done", async () => {
    let finishReload: () => void = () => {};
    const reloading = new Promise<void>((resolve) => {
      finishReload = resolve;
    });
    const watcher = new ChangeWatcher({
      changes: store.changes,
      onChange: {
        keys: () => {},
        overrides: () => reloading,
        lists: () => {},
        records: () => {},
        account_lists: () => {},
      },
      pollMs: NO_TIMER,
    });
    watchers.push(watcher);
    expect(watcher.policyVersion()).toBeUndefined();
    await watcher.start();
    const before = watcher.policyVersion() as number;
    expect(before).toBe(policyVersion(await store.changes.versions()));

    await denyOverride("a.test");
    const polling = watcher.poll();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(watcher.policyVersion()).toBe(before); // seen, not yet reloaded
    finishReload();
    await polling;
    expect(watcher.policyVersion()).toBe(before + 1);

    await purge("b.test"); // records: no policy change
    await watcher.poll();
    expect(watcher.policyVersion()).toBe(before + 1);
  });

  it("has run the handler once settle() resolves after a change", async () => {
    const { watcher, ran } = loggingWatcher();
    await watcher.start();
    await store.keys.setKeyPlan((await store.keys.createKey({ plan: "free", now: AT })).key.id, "unlimited");
    await watcher.settle();
    expect(ran).toEqual(["keys"]);
  });

  it("settles with a poll of its own when the running one read the counters before the change", async () => {
    let hold: Promise<void> | undefined;
    let release: () => void = () => undefined;
    const { watcher, ran } = loggingWatcher({
      versions: async () => {
        const read = await store.changes.versions();
        await hold;
        return read;
      },
    });
    await watcher.start();
    hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const running = watcher.poll(); // reads at once, answers when released
    await new Promise((resolve) => setTimeout(resolve, 10));
    await purge("a.test");
    const settled = watcher.settle();
    hold = undefined;
    release();
    await Promise.all([running, settled]);
    expect(ran).toEqual(["records"]);
  });

  it("reports a failing read once per streak of failures, and catches up once it reads again", async () => {
    let failing = false;
    const { watcher, ran, errors } = loggingWatcher({
      versions: async () => {
        if (failing) throw new Error("database unreachable");
        return store.changes.versions();
      },
    });
    await watcher.start();
    failing = true;
    await watcher.poll();
    await watcher.poll();
    await watcher.settle();
    expect(errors).toHaveLength(1);
    await denyOverride("a.test"); // made while the watcher cannot read
    failing = false;
    await watcher.poll();
    expect(ran).toEqual(["overrides"]);
    failing = true;
    await watcher.poll();
    await watcher.poll();
    expect(errors).toHaveLength(2);
    expect(ran).toEqual(["overrides"]);
  });
});

describe("changeWatcherOf: a server's watcher", () => {
  it("forgets remembered keys, reloads overrides or lists, or forgets remembered facts", async () => {
    const calls: string[] = [];
    const watched = {
      changes: store.changes,
      forgetKeys: () => {
        calls.push("forgetKeys");
      },
    };
    const checker = {
      forgetRemembered: () => {
        calls.push("forgetRemembered");
      },
      reloadSources: async (which: "overrides" | "lists") => {
        calls.push(`reloadSources ${which}`);
      },
    };
    const watcher = changeWatcherOf(watched, checker, undefined, NO_TIMER);
    void watcher.start();
    watchers.push(watcher);
    await watcher.settle();
    expect(calls).toEqual([]);
    await store.plans.updatePlan("free", { quota: 7 });
    await watcher.settle();
    await denyOverride("a.test");
    await watcher.settle();
    await purge("a.test");
    await watcher.settle();
    await store.lists.acceptVersion({
      source: "upstream",
      hash: "h1",
      url: "http://127.0.0.1:9/list.txt",
      acceptedAt: AT,
      entries: new Map([["throwaway.test", AT.getTime()]]),
    });
    await watcher.settle();
    expect(calls).toEqual([
      "forgetKeys",
      "reloadSources overrides",
      "forgetRemembered",
      "reloadSources lists",
    ]);
  });
});
