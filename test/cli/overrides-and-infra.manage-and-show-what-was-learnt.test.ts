/**
 * `mailrisk overrides add|remove|list` and `mailrisk infra list` on a real SQLite file:
 * the operator's word on a domain or a piece of infrastructure, and what was learnt from
 * which evidence, with its state against the thresholds.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { run as infra } from "../../src/cli/infra-command.js";
import { run as overrides } from "../../src/cli/overrides-command.js";
import type { Evidence } from "../../src/core/learned.js";
import { openStore } from "../../src/store/index.js";

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase("sqlite");
});
afterEach(() => database.drop());

async function cli(command: typeof overrides, ...args: string[]) {
  const test = createTestCli(database.url);
  const code = await command(args, test.ctx);
  return { code, stdout: test.stdout(), stderr: test.stderr() };
}

function evidence(domain: string, listed: Evidence["listed"], mxHost: string): Evidence {
  return {
    domain,
    mxHosts: [mxHost],
    mxIps: [],
    nameServers: [],
    listed,
    service: listed === "disposable" ? domain : null,
  };
}

async function seen(entries: Evidence[]): Promise<void> {
  const store = await openStore(database.location);
  try {
    await store.migrate();
    await store.infrastructure.recordEvidence(entries.map((e) => ({ evidence: e, seenAt: new Date() })));
  } finally {
    await store.close();
  }
}

describe("mailrisk overrides", () => {
  it("adds, lists and removes overrides of domains and infrastructure, normalised", async () => {
    expect(await cli(overrides, "add", "deny", "Spam.Example.", "--note", "abuse")).toEqual({
      code: 0,
      stdout: "Set override: domain spam.example deny. Running servers take it within a second.\n",
      stderr: "",
    });
    expect((await cli(overrides, "add", "never-disposable", "mx-host", "MX.Shared.Example")).code).toBe(0);
    const listed = JSON.parse((await cli(overrides, "list", "--json")).stdout) as {
      kind: string;
      value: string;
      action: string;
      note: string | null;
    }[];
    expect(listed.map(({ kind, value, action, note }) => [kind, value, action, note]).sort()).toEqual([
      ["domain", "spam.example", "deny", "abuse"],
      ["mx_host", "mx.shared.example", "never_disposable", null],
    ]);
    expect((await cli(overrides, "remove", "spam.example")).stdout).toBe(
      "Removed override: domain spam.example. Running servers take it within a second.\n",
    );
    expect((await cli(overrides, "remove", "spam.example")).code).toBe(1);
    expect(JSON.parse((await cli(overrides, "list", "--json")).stdout)).toHaveLength(1);
  });

  it.each([
    [["add", "allow", "mx-host", "mx.example"]],
    [["add", "never-disposable", "example.com"]],
    [["add", "block", "example.com"]],
    [["add", "deny", "not a domain"]],
    [["remove"]],
    [["remove", "example.com", "extra"]],
  ])("refuses %j as a usage error", async (args) => {
    const { code, stderr } = await cli(overrides, ...args);
    expect(code).toBe(2);
    expect(stderr).toContain("usage: mailrisk overrides");
  });

  it.each([
    [["add"], /^mailrisk: overrides add needs allow, deny or never-disposable\n/],
    [
      ["add", "block", "example.com"],
      /^mailrisk: overrides add needs allow, deny or never-disposable \(got "block"\)\n/,
    ],
    [["remove"], /^mailrisk: overrides remove needs a domain, or mx-host, mx-ip or ns and a value\n/],
  ])("says exactly what is wrong with %j", async (args, message) => {
    expect((await cli(overrides, ...args)).stderr).toMatch(message);
  });
});

describe("mailrisk infra list", () => {
  beforeEach(async () => {
    await seen([
      ...["a", "b", "c"].map((x) => evidence(`${x}-throwaway.example`, "disposable", "mx.burner.example")),
      evidence("d-unlisted.example", "unknown", "mx.burner.example"),
      ...["e", "f", "g"].map((x) => evidence(`${x}-throwaway.example`, "disposable", "mx.shared.example")),
      evidence("big-company.example", "good", "mx.shared.example"),
      evidence("h-throwaway.example", "disposable", "mx.lonely.example"),
    ]);
  });

  it("shows infrastructure that passed the thresholds, with its evidence", async () => {
    const { code, stdout } = await cli(infra, "list", "--json");
    expect(code).toBe(0);
    const shown = JSON.parse(stdout) as {
      value: string;
      state: string;
      disposable: number;
      unknown: number;
    }[];
    expect(shown.map(({ value, state, disposable, unknown }) => [value, state, disposable, unknown])).toEqual(
      [["mx.burner.example", "disposable", 3, 1]],
    );
  });

  it("with --all also shows what stays below the thresholds or carries good domains, and why", async () => {
    const shown = JSON.parse((await cli(infra, "list", "--all", "--json")).stdout) as {
      value: string;
      state: string;
    }[];
    expect(Object.fromEntries(shown.map(({ value, state }) => [value, state]))).toEqual({
      "mx.burner.example": "disposable",
      "mx.shared.example": "has good domains",
      "mx.lonely.example": "below thresholds",
    });
  });

  it("says when the operator marked infrastructure never disposable", async () => {
    await cli(overrides, "add", "never-disposable", "mx-host", "mx.burner.example");
    const shown = JSON.parse((await cli(infra, "list", "--all", "--json")).stdout) as {
      value: string;
      state: string;
    }[];
    expect(shown.find((s) => s.value === "mx.burner.example")?.state).toBe("never disposable (operator)");
  });
});
