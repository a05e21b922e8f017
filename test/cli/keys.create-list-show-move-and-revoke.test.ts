import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { run } from "../../src/cli/keys-command.js";
import { openStore } from "../../src/store/index.js";

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase("sqlite");
});
afterEach(() => database.drop());

async function keys(...args: string[]) {
  const cli = createTestCli(database.url);
  const code = await run(args, cli.ctx);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

async function authenticate(secret: string) {
  const store = await openStore(database.location);
  try {
    return (await store.usage.authorize(secret, new Date()))?.key;
  } finally {
    await store.close();
  }
}

describe("keys create", () => {
  it("--json prints id, key and plan first, then the rest of POST /admin/keys' body; the key authenticates", async () => {
    const { code, stdout, stderr } = await keys("create", "--plan", "free", "--name", "ci", "--json");
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const created = JSON.parse(stdout) as { id: string; key: string; plan: string };
    // `{"id","key","plan"}` first; the rest of the admin API's created key follows.
    expect(Object.keys(created)).toEqual([
      "id",
      "key",
      "plan",
      "prefix",
      "name",
      "created_at",
      "publishable",
      "origins",
    ]);
    expect(created).toMatchObject({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^mr_/),
      plan: "free",
    });
    expect(await authenticate(created.key)).toMatchObject({ id: created.id, name: "ci", quota: 1000 });
  });

  it("prints the key once in readable text", async () => {
    const { code, stdout } = await keys("create", "--plan", "free");
    expect(code).toBe(0);
    const secret = /\b(mr_[0-9A-Za-z]{32})\b/.exec(stdout)?.[1];
    expect(secret).toBeDefined();
    expect(stdout.split(secret as string)).toHaveLength(2);
    expect(stdout).toMatch(/shown only this once/);
    expect(stdout).toMatch(/Created key key_\w+ on plan free/);
  });

  it("refuses an unknown plan with exit code 1", async () => {
    const { code, stdout, stderr } = await keys("create", "--plan", "gold");
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/unknown plan "gold"/);
  });

  it.each([
    [["create"], /needs --plan/],
    [["create", "--plan"], /^mailrisk: --plan needs a value\n/],
    [["create", "--plan", "--json"], /^mailrisk: --plan needs a value, not "--json"/],
    [
      ["create", "--plan", "free", "--colour"],
      /^mailrisk: unknown option --colour \(this command takes --plan, --name, --publishable, --origin, --json\)\n/,
    ],
    [["create", "--plan", "free", "--json=yes"], /^mailrisk: --json takes no value\n/],
    [["create", "--plan", "free", "extra"], /^mailrisk: unexpected argument "extra"/],
    [[], /^mailrisk: keys needs a command: create, list, show, set-plan, set-origins, revoke\n/],
    [["rotate"], /unknown keys command "rotate"/],
  ])("exits 2 on bad arguments %j", async (args, message) => {
    const { code, stderr } = await keys(...args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).toMatch(/usage: mailrisk keys create/);
  });
});

describe("keys list and revoke", () => {
  it("lists keys without their secrets, then shows a revoked one as revoked", async () => {
    const created = JSON.parse(
      (await keys("create", "--plan", "free", "--name", "web", "--json")).stdout,
    ) as {
      id: string;
      key: string;
    };

    const listed = await keys("list", "--json");
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      {
        id: created.id,
        prefix: created.key.slice(0, 8),
        name: "web",
        plan: "free",
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
        revoked_at: null,
        publishable: false,
        origins: [],
      },
    ]);
    expect(listed.stdout).not.toContain(created.key);

    expect(await keys("revoke", created.id)).toEqual({
      code: 0,
      stdout: `Revoked key ${created.id}. Running servers take it within a second.\n`,
      stderr: "",
    });
    expect(await authenticate(created.key)).toBeUndefined();

    const text = await keys("list");
    expect(text.stdout).toMatch(/^ID\s+KEY\s+PLAN\s+NAME\s+CREATED\s+STATUS\s+ORIGINS$/m);
    expect(text.stdout).toMatch(
      new RegExp(`^${created.id}\\s+${created.key.slice(0, 8)}…\\s+free\\s+web\\s+.*revoked`, "m"),
    );
    expect(text.stdout).not.toContain(created.key);
  });

  it("says so when there are no keys", async () => {
    expect((await keys("list")).stdout).toMatch(/^No keys\./);
    expect((await keys("list", "--json")).stdout).toBe("[]\n");
  });

  it("revoking an unknown key exits 1", async () => {
    const { code, stderr } = await keys("revoke", "key_nope");
    expect(code).toBe(1);
    expect(stderr).toMatch(/unknown key "key_nope"/);
  });

  it.each([[["revoke"]], [["revoke", "a", "b"]], [["list", "--all"]]])("exits 2 on %j", async (args) => {
    expect((await keys(...args)).code).toBe(2);
  });

  it("prints usage for help", async () => {
    const { code, stdout } = await keys("help");
    expect(code).toBe(0);
    expect(stdout).toMatch(/keys revoke <id>/);
  });
});

/** Creates a key on `plan` and counts `requests` requests on it now. */
async function keyWithRequests(plan: string, requests: number): Promise<string> {
  const created = JSON.parse((await keys("create", "--plan", plan, "--json")).stdout) as {
    id: string;
    key: string;
  };
  const store = await openStore(database.location);
  try {
    for (let i = 0; i < requests; i++) await store.usage.authorize(created.key, new Date());
  } finally {
    await store.close();
  }
  return created.id;
}

describe("keys show", () => {
  it("prints the key with its plan and usage, as a table or as JSON", async () => {
    const id = await keyWithRequests("free", 3);
    const text = await keys("show", id);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^id\\s+${id}$`, "m"));
    expect(text.stdout).toMatch(/^plan\s+free \(1000 per 30 days\)$/m);
    expect(text.stdout).toMatch(/^used\s+3$/m);
    expect(text.stdout).toMatch(/^remaining\s+997$/m);
    expect(text.stdout).toMatch(/^PERIOD START\s+USED$/m);

    const json = JSON.parse((await keys("show", id, "--json")).stdout);
    expect(json).toMatchObject({ id, plan: "free", usage: { limit: 1000, used: 3, remaining: 997 } });
    expect(json.usage.periods).toHaveLength(1);
  });

  it("shows an unlimited key's remaining as unlimited", async () => {
    const id = await keyWithRequests("unlimited", 2);
    const { stdout } = await keys("show", id);
    expect(stdout).toMatch(/^plan\s+unlimited \(unlimited per 30 days\)$/m);
    expect(stdout).toMatch(/^used\s+2$/m);
    expect(stdout).toMatch(/^remaining\s+unlimited$/m);
  });

  it("exits 1 on an unknown key and 2 without exactly one id", async () => {
    expect(await keys("show", "key_nope")).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/unknown key/),
    });
    expect((await keys("show")).code).toBe(2);
    expect((await keys("show", "a", "b")).code).toBe(2);
  });
});

describe("keys set-plan", () => {
  it("moves a key to another plan", async () => {
    const id = await keyWithRequests("free", 0);
    expect(await keys("set-plan", id, "unlimited")).toEqual({
      code: 0,
      stdout: `Moved key ${id} to plan unlimited. Running servers take it within a second.\n`,
      stderr: "",
    });
    expect(JSON.parse((await keys("list", "--json")).stdout)[0].plan).toBe("unlimited");
  });

  it("exits 1 on an unknown key or plan, 2 on bad arguments", async () => {
    const id = await keyWithRequests("free", 0);
    expect(await keys("set-plan", id, "gold")).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/unknown plan/),
    });
    expect(await keys("set-plan", "key_nope", "free")).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/unknown key/),
    });
    expect((await keys("set-plan", id)).code).toBe(2);
  });
});
