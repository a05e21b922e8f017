/**
 * The bundled list is a version (issue 36, reproduction 2): a first sync of `mailchecker`
 * is judged against its bundled entries, so a one-line list is refused and aleitar.com
 * (bundled through mailchecker alone) stays disposable; `lists rollback` returns to the
 * bundled version and back; `lists remove` deletes a source's stored versions.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../../harness/databases.js";
import { type ListServer, startListServer } from "../../harness/list-server.js";
import { run } from "../../src/cli/lists-command.js";
import { domainListData, readBundledDisposable, readListData } from "../../src/data/read-domain-lists.js";
import { ListsInForce } from "../../src/service/lists/lists-in-force.js";
import { openStore } from "../../src/store/index.js";

const BUNDLED = domainListData(readListData());
const bundledMailchecker = [...readBundledDisposable()]
  .filter(([, sources]) => sources.includes("mailchecker"))
  .map(([entry]) => entry);

describe.each(DATABASE_KINDS)("on %s", (kind) => {
  let database: TestDatabase;
  let server: ListServer;

  beforeEach(async () => {
    database = await createTestDatabase(kind);
    server = await startListServer();
  });
  afterEach(async () => {
    await server.close();
    await database.drop();
  });

  async function lists(...args: string[]) {
    const cli = createTestCli(database.url, "", { LIST_SOURCES: `mailchecker=${server.url}/list.txt` });
    const code = await run(args, cli.ctx);
    return { code, stdout: cli.stdout(), stderr: cli.stderr() };
  }

  /** Whether aleitar.com is disposable with the lists in force in the database. */
  async function aleitarIsDisposable(): Promise<boolean> {
    const store = await openStore(database.location);
    try {
      const inForce = new ListsInForce({ bundled: BUNDLED, store, sources: ["mailchecker"] });
      await inForce.ready;
      return inForce.disposable("aleitar.com", "aleitar.com") !== undefined;
    } finally {
      await store.close();
    }
  }

  it("refuses a first sync that shrinks the bundled entries by more than 30 %", async () => {
    server.publish("/list.txt", { body: "one-fresh-throwaway.com\n" });
    const { code, stdout } = await lists("update");
    expect(code).toBe(0);
    expect(stdout).toContain(
      `mailchecker: refused (shrinks by 100 % (${bundledMailchecker.length} → 1 entries, against the bundled list); more than 30 % is refused)`,
    );
    expect(await aleitarIsDisposable()).toBe(true);
  });

  it("rolls back to the bundled version and forward again", async () => {
    server.publish("/list.txt", {
      body: `${bundledMailchecker.filter((d) => d !== "aleitar.com").join("\n")}\nfresh-throwaway.com\n`,
    });
    const update = await lists("update", "--json");
    expect(JSON.parse(update.stdout).sources[0]).toMatchObject({ outcome: "accepted", added: 1, removed: 1 });
    expect(await aleitarIsDisposable()).toBe(false);

    expect(await lists("rollback", "mailchecker")).toMatchObject({ code: 0 });
    expect(await aleitarIsDisposable()).toBe(true);
    const [state] = JSON.parse((await lists("status", "--json")).stdout);
    expect(state).toMatchObject({
      source: "mailchecker",
      in_force: null,
      previous: { entries: bundledMailchecker.length },
    });

    expect(await lists("rollback", "mailchecker")).toMatchObject({ code: 0 });
    expect(await aleitarIsDisposable()).toBe(false);
  });

  it("removes a source's stored versions, and says when a source is unknown", async () => {
    server.publish("/list.txt", {
      body: `${bundledMailchecker.filter((d) => d !== "aleitar.com").join("\n")}\n`,
    });
    await lists("update");
    expect(await aleitarIsDisposable()).toBe(false);
    expect(await lists("remove", "mailchecker")).toEqual({
      code: 0,
      stdout: "Removed the stored versions of mailchecker. Running servers take it within a second.\n",
      stderr: "",
    });
    expect(await aleitarIsDisposable()).toBe(true);
    const [state] = JSON.parse((await lists("status", "--json")).stdout);
    expect(state).toMatchObject({
      source: "mailchecker",
      last_attempt: null,
      in_force: null,
      previous: null,
    });

    expect(await lists("remove", "nosuch")).toMatchObject({
      code: 1,
      stderr: 'mailrisk: unknown source "nosuch": nothing of it is stored\n',
    });
    expect((await lists("remove")).code).toBe(2);
  });
});
