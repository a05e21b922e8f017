import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../../harness/databases.js";
import { run } from "../../src/cli/keys-command.js";
import { openStore } from "../../src/store/index.js";

describe.each(DATABASE_KINDS)("publishable keys from the CLI on %s", (kind) => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase(kind);
  });
  afterEach(() => database.drop());

  async function keys(...args: string[]) {
    const cli = createTestCli(database.url);
    const code = await run(args, cli.ctx);
    return { code, stdout: cli.stdout(), stderr: cli.stderr() };
  }

  async function storedKeys() {
    const store = await openStore(database.location);
    try {
      return await store.keys.listKeys();
    } finally {
      await store.close();
    }
  }

  it("creates an mrp_ key bound to its origins, printed once like a secret key", async () => {
    const created = await keys(
      "create",
      "--plan",
      "free",
      "--publishable",
      "--origin",
      "https://Shop.Example",
      "--origin",
      "http://127.0.0.2:3000/",
    );
    expect(created.code).toBe(0);
    const secret = /\b(mrp_[0-9A-Za-z]{32})\b/.exec(created.stdout)?.[1] as string;
    expect(secret).toBeDefined();
    expect(created.stdout.split(secret)).toHaveLength(2);
    expect(created.stdout).toMatch(
      /^Created publishable key key_\w+ for https:\/\/shop\.example, http:\/\/127\.0\.0\.2:3000 on plan free\.$/m,
    );
    expect(created.stdout).toMatch(/shown only this once/);

    const json = JSON.parse(
      (await keys("create", "--plan", "free", "--publishable", "--origin", "https://shop.example", "--json"))
        .stdout,
    );
    expect(Object.keys(json)).toEqual([
      "id",
      "key",
      "plan",
      "prefix",
      "name",
      "created_at",
      "publishable",
      "origins",
    ]);
    expect(json).toMatchObject({ key: expect.stringMatching(/^mrp_/), origins: ["https://shop.example"] });
    // A secret key's answer has the same shape.
    expect(Object.keys(JSON.parse((await keys("create", "--plan", "free", "--json")).stdout))).toEqual([
      "id",
      "key",
      "plan",
      "prefix",
      "name",
      "created_at",
      "publishable",
      "origins",
    ]);
  });

  it("lists and shows the origins, and replaces them with set-origins", async () => {
    const { id } = JSON.parse(
      (await keys("create", "--plan", "free", "--publishable", "--origin", "https://shop.example", "--json"))
        .stdout,
    ) as { id: string };
    const secretId = JSON.parse((await keys("create", "--plan", "free", "--json")).stdout).id as string;

    const list = await keys("list");
    expect(list.stdout).toMatch(
      new RegExp(`^${id}\\s+mrp_\\w{4}…\\s+free\\s+-\\s+\\S+\\s+active\\s+https://shop\\.example$`, "m"),
    );
    expect(list.stdout).toMatch(
      new RegExp(`^${secretId}\\s+mr_\\w{5}…\\s+free\\s+-\\s+\\S+\\s+active\\s+-$`, "m"),
    );
    const listed = JSON.parse((await keys("list", "--json")).stdout);
    expect(
      listed.map((key: { publishable: boolean; origins: string[] }) => [key.publishable, key.origins]),
    ).toEqual([
      [true, ["https://shop.example"]],
      [false, []],
    ]);

    expect(await keys("set-origins", id, "https://www.shop.example", "HTTPS://SHOP.EXAMPLE:443")).toEqual({
      code: 0,
      stdout: `Key ${id} now takes https://www.shop.example, https://shop.example. Running servers take it within a second.\n`,
      stderr: "",
    });
    const shown = await keys("show", id);
    expect(shown.stdout).toMatch(/^kind\s+publishable$/m);
    expect(shown.stdout).toMatch(/^origins\s+https:\/\/www\.shop\.example https:\/\/shop\.example$/m);
    expect(JSON.parse((await keys("show", id, "--json")).stdout)).toMatchObject({
      publishable: true,
      origins: ["https://www.shop.example", "https://shop.example"],
    });
    expect((await keys("show", secretId)).stdout).toMatch(/^kind\s+secret$/m);
  });

  it.each([
    [["--publishable"], /at least one origin/],
    [["--publishable", "--origin", "*"], /"\*" has a wildcard/],
    [["--publishable", "--origin", "https://*.shop.example"], /wildcard/],
    [["--publishable", "--origin", "https://shop.example/signup"], /without a path/],
    [["--publishable", "--origin", "shop.example"], /scheme:\/\/host\[:port\]/],
    [["--origin", "https://shop.example"], /only a publishable key has origins/],
  ])("refuses create %j with exit code 2 and creates nothing", async (extra, message) => {
    const { code, stdout, stderr } = await keys("create", "--plan", "free", ...extra);
    expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
    expect(stderr).toMatch(message);
    expect(stderr).toMatch(/usage: mailrisk keys create/);
    expect(await storedKeys()).toEqual([]);
  });

  it("refuses set-origins for a secret key, bad origins, none, or an unknown key", async () => {
    const secretId = JSON.parse((await keys("create", "--plan", "free", "--json")).stdout).id as string;
    const { id } = JSON.parse(
      (await keys("create", "--plan", "free", "--publishable", "--origin", "https://shop.example", "--json"))
        .stdout,
    ) as { id: string };
    expect(await keys("set-origins", secretId, "https://shop.example")).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/is a secret key; only publishable keys have origins/),
    });
    expect(await keys("set-origins", id, "*")).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/wildcard/),
    });
    expect(await keys("set-origins", id)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/needs at least one origin/),
    });
    expect(await keys("set-origins")).toMatchObject({ code: 2 });
    expect(await keys("set-origins", "key_nope", "https://shop.example")).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/unknown key "key_nope"/),
    });
    expect((await storedKeys()).find((key) => key.id === id)?.origins).toEqual(["https://shop.example"]);
  });
});
