/**
 * Every `--json` output of the CLI is byte for byte the body of the matching admin API
 * answer (docs/architecture.md "Operator services"): each pair runs the CLI command
 * in-process and injects the admin route, against one database at one time.
 */
import type { InjectOptions } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { run as accounts } from "../../src/cli/accounts-command.js";
import { run as audit } from "../../src/cli/audit-command.js";
import { run as jobs } from "../../src/cli/jobs-command.js";
import { run as keys } from "../../src/cli/keys-command.js";
import { run as lists } from "../../src/cli/lists-command.js";
import { run as overrides } from "../../src/cli/overrides-command.js";
import { run as plans } from "../../src/cli/plans-command.js";
import { run as reports } from "../../src/cli/reports-command.js";
import { run as stats } from "../../src/cli/stats-command.js";
import { run as webhooks } from "../../src/cli/webhooks-command.js";
import { useLink } from "../../src/operator/passwords.js";
import type { Checker } from "../../src/service/checking/checker.js";
import { createChecker } from "../../src/service/checking/create-checker.js";
import { fakeChecker, type HttpFixture, openHttpFixture } from "../http/helpers.js";

const TOKEN = "admin-token-for-tests-0123456789abcdef";
/** A source whose sync fails at once: fetch refuses port 9. */
const SOURCE = { name: "up", url: "http://127.0.0.1:9/up.txt" };
type Command = (args: string[], ctx: ReturnType<typeof createTestCli>["ctx"]) => Promise<number>;

let fixture: HttpFixture;
let today: Checker;
beforeEach(async () => {
  // Both surfaces answer the report queue with the checker the CLI builds from its configuration.
  fixture = await openHttpFixture({
    adminToken: TOKEN,
    signup: "invite",
    listSources: [SOURCE],
    checker: fakeChecker((input) => today.check(input)),
  });
  today = createChecker({ config: testCli().ctx.config, store: fixture.store });
});
afterEach(async () => {
  await today.drain();
  await fixture.close();
});

function testCli() {
  const cli = createTestCli(fixture.databaseUrl, "", {
    LIST_SOURCES: `${SOURCE.name}=${SOURCE.url}`,
    SIGNUP: "invite",
  });
  cli.ctx.clock = fixture.clock.now;
  return cli;
}

/** What the command prints on stdout; it exits `code` and says nothing on stderr. */
async function cliJson(command: Command, ...args: string[]): Promise<string> {
  return cliJsonExiting(0, command, ...args);
}
async function cliJsonExiting(code: number, command: Command, ...args: string[]): Promise<string> {
  const cli = testCli();
  expect({ code: await command(args, cli.ctx), stderr: cli.stderr() }).toEqual({ code, stderr: "" });
  return cli.stdout();
}

async function adminBody(options: InjectOptions): Promise<string> {
  const answer = await fixture.app.inject({ ...options, headers: { authorization: `Bearer ${TOKEN}` } });
  expect(answer.statusCode, answer.body).toBeLessThan(300);
  return `${answer.body}\n`;
}

/** The two outputs, with what is new in each creation (ids, secrets) replaced by its field name. */
function withoutNew(json: string, fields: string[]): string {
  const value = JSON.parse(json) as Record<string, unknown>;
  for (const field of fields) if (field in value) value[field] = field;
  return JSON.stringify(value);
}

describe("the CLI's --json is the admin API's body", () => {
  it("keys create, list and show", async () => {
    const created = await cliJson(keys, "create", "--plan", "free", "--name", "shop", "--json");
    const posted = await adminBody({
      method: "POST",
      url: "/admin/keys",
      payload: { plan: "free", name: "shop" },
    });
    expect(withoutNew(created, ["id", "key", "prefix"])).toBe(withoutNew(posted, ["id", "key", "prefix"]));
    expect(Object.keys(JSON.parse(created)).slice(0, 3)).toEqual(["id", "key", "plan"]);

    const publishable = ["--publishable", "--origin", "https://shop.example"];
    await cliJson(keys, "create", "--plan", "free", ...publishable, "--json");
    const { id } = JSON.parse(created) as { id: string };
    await cliJson(keys, "revoke", id);
    expect(await cliJson(keys, "list", "--json")).toBe(await adminBody({ url: "/admin/keys" }));
    expect(await cliJson(keys, "show", id, "--json")).toBe(await adminBody({ url: `/admin/keys/${id}` }));
  });

  it("accounts invite, list, search, show, set-plan, suspend, resume, reset-2fa, reset-password and delete", async () => {
    const invited = await cliJson(accounts, "invite", "ann@example.com", "--json");
    const posted = await adminBody({
      method: "POST",
      url: "/admin/accounts/invite",
      payload: { email: "bob@example.com" },
    });
    expect(withoutNew(invited, ["email", "url"])).toBe(withoutNew(posted, ["email", "url"]));
    const token = (JSON.parse(invited) as { url: string }).url.split("/invite/")[1] ?? "";
    const used = await useLink(fixture.store, {
      token,
      password: "a long password",
      now: fixture.clock.now(),
    });
    const ann = used.kind === "set" ? used.account : undefined;
    expect(ann?.email).toBe("ann@example.com");
    expect(await cliJson(accounts, "list", "--json")).toBe(await adminBody({ url: "/admin/accounts" }));
    const listed = ["a.example.com", "b.example.com"].map((domain) => ({
      domain,
      action: "block" as const,
      createdAt: fixture.clock.now(),
    }));
    await fixture.store.accountLists.importEntries(ann?.id ?? "", listed, 10);
    const show = await cliJson(accounts, "show", "ann@example.com", "--json");
    expect(show).toBe(await adminBody({ url: `/admin/accounts/${ann?.id}` }));
    expect((JSON.parse(show) as { keys: unknown[] }).keys).toHaveLength(1);
    expect(JSON.parse(show)).toMatchObject({ list_entries: 2, two_factor: false });
    const annId = ann?.id ?? "";
    await fixture.store.twoFactor.savePending(
      annId,
      "JBSWY3DPEHPK3PXP",
      new Date(fixture.clock.now().getTime() + 60_000),
    );
    await fixture.store.twoFactor.turnOn(annId, {
      secret: "JBSWY3DPEHPK3PXP",
      recoveryHashes: ["0".repeat(64)],
      now: fixture.clock.now(),
    });
    const twoFactor = await cliJson(accounts, "show", "ann@example.com", "--json");
    expect(twoFactor).toBe(await adminBody({ url: `/admin/accounts/${annId}` }));
    expect(JSON.parse(twoFactor)).toMatchObject({ two_factor: true });
    await cliJson(plans, "create", "partner", "--quota", "500");
    const moved = await cliJson(accounts, "set-plan", "ann@example.com", "partner", "--json");
    expect(JSON.parse(moved)).toMatchObject({ email: "ann@example.com", plan: "partner" });
    const patched = await adminBody({
      method: "PATCH",
      url: `/admin/accounts/${ann?.id}`,
      payload: { plan: "partner" },
    });
    expect(moved).toBe(patched);
    const searched = await cliJson(accounts, "list", "--search", "ANN@", "--json");
    expect(searched).toBe(await adminBody({ url: "/admin/accounts?search=ANN%40" }));
    expect(JSON.parse(searched)).toHaveLength(1);
    for (const action of ["suspend", "resume", "reset-2fa"]) {
      const cli = await cliJson(accounts, action, "ann@example.com", "--json");
      const admin = await adminBody({ method: "POST", url: `/admin/accounts/${ann?.id}/${action}` });
      expect(cli).toBe(admin);
    }
    const link = await cliJson(accounts, "reset-password", "ann@example.com", "--json");
    const adminLink = await adminBody({ method: "POST", url: `/admin/accounts/${ann?.id}/reset-password` });
    expect(withoutNew(link, ["url"])).toBe(withoutNew(adminLink, ["url"]));
    const deleted = await cliJson(accounts, "delete", "ann@example.com", "--json");
    expect(JSON.parse(deleted)).toMatchObject({ id: ann?.id, email: "ann@example.com" });
    expect(await adminBody({ url: "/admin/accounts" })).toBe("[]\n");
  });

  it("stats", async () => {
    const day = new Date(fixture.clock.now().getTime() - 86_400_000);
    await fixture.store.traffic.addCounts([
      { day, kind: "surface", name: "api", count: 5 },
      { day, kind: "surface", name: "jobs", count: 2 },
      { day, kind: "block", name: "Parked", count: 1 },
      { day, kind: "block", name: "Disposable", count: 3 },
      { day, kind: "provider", name: "mailinator.com", count: 3 },
      { day, kind: "domain", name: "mailinator.com", count: 3 },
      { day, kind: "domain", name: "parked.example", count: 1 },
    ]);
    const { secret } = await fixture.newKey();
    await fixture.store.usage.authorize(secret, fixture.clock.now(), 4);
    await fixture.store.usage.flushDailyUsage();
    const body = await adminBody({ url: "/admin/stats" });
    expect(await cliJson(stats, "--json")).toBe(body);
    const read = JSON.parse(body) as { days: { blocks: object }[]; top_keys: { used: number }[] };
    expect(read.days).toHaveLength(30);
    expect(Object.keys(read.days[28]?.blocks ?? {})).toEqual(["Disposable", "Parked"]);
    expect(read.top_keys.map((key) => key.used)).toEqual([4]);
  });

  it("plans list", async () => {
    await cliJson(plans, "create", "partner", "--quota", "500", "--period-days", "7");
    expect(await cliJson(plans, "list", "--json")).toBe(await adminBody({ url: "/admin/plans" }));
  });

  it("audit list, whole and searched", async () => {
    await cliJson(plans, "create", "partner", "--quota", "500");
    await cliJson(overrides, "add", "deny", "spam.example");
    await adminBody({
      method: "POST",
      url: "/admin/overrides",
      payload: { kind: "domain", value: "ham.example", action: "allow" },
    });
    expect(await cliJson(audit, "list", "--json")).toBe(await adminBody({ url: "/admin/audit" }));
    const searched = ["--actor", "cli", "--action", "override", "--entity", "override:domain:spam.example"];
    expect(await cliJson(audit, "list", ...searched, "--limit", "5", "--json")).toBe(
      await adminBody({
        url: "/admin/audit?actor=cli&action=override&entity=override:domain:spam.example&limit=5",
      }),
    );
  });

  it("overrides list", async () => {
    await cliJson(overrides, "add", "deny", "Spam.Example.", "--note", "abuse");
    await cliJson(overrides, "add", "never-disposable", "mx-host", "MX.Shared.Example");
    expect(await cliJson(overrides, "list", "--json")).toBe(await adminBody({ url: "/admin/overrides" }));
  });

  it("webhooks add, list and deliveries", async () => {
    const added = await cliJson(webhooks, "add", "https://hooks.example/a", "--json");
    const posted = await adminBody({
      method: "POST",
      url: "/admin/webhooks",
      payload: { url: "https://hooks.example/a" },
    });
    expect(withoutNew(added, ["id", "secret"])).toBe(withoutNew(posted, ["id", "secret"]));
    expect(await cliJson(webhooks, "list", "--json")).toBe(await adminBody({ url: "/admin/webhooks" }));
    expect(await cliJson(webhooks, "deliveries", "--json")).toBe(
      await adminBody({ url: "/admin/webhooks/deliveries" }),
    );
  });

  it("jobs list, show and cancel", async () => {
    const { id: keyId } = await fixture.newKey();
    const ids: string[] = [];
    for (const count of [2, 3]) {
      const id = await fixture.store.jobs.startUpload({
        keyId,
        header: '["input"]',
        layout: "{}",
        now: fixture.clock.now(),
      });
      await fixture.store.jobs.addBatch(
        id,
        0,
        Array.from({ length: count }, (_, i) => ({ input: `d${i}.example`, row: "{}" })),
      );
      await fixture.store.jobs.queueJob(id, count, fixture.clock.now());
      ids.push(id);
    }
    const [first, second] = ids as [string, string];
    expect(await cliJson(jobs, "list", "--json")).toBe(await adminBody({ url: "/admin/jobs" }));
    expect(await cliJson(jobs, "show", first, "--json")).toBe(
      await adminBody({ url: `/admin/jobs/${first}` }),
    );
    const cancelled = await cliJson(jobs, "cancel", first, "--json");
    expect(JSON.parse(cancelled).status).toBe("cancelled");
    expect(cancelled).toBe(await adminBody({ method: "POST", url: `/admin/jobs/${first}/cancel` }));
    await adminBody({ method: "POST", url: `/admin/jobs/${second}/cancel` });
    expect(await cliJson(jobs, "show", second, "--json")).toBe(
      await adminBody({ url: `/admin/jobs/${second}` }),
    );
  });

  it("reports list, with today's answer and its evidence", async () => {
    const { id: keyId } = await fixture.newKey();
    for (const [domain, expected] of [
      ["one.invalid", "allow"],
      ["two.invalid", "block"],
    ] as const) {
      const report = { keyId, domain, expected, note: "why", filedAt: fixture.clock.now() };
      await fixture.store.reports.fileReport(report, { max: 100, windowMs: 86_400_000 });
    }
    const listed = await cliJson(reports, "list", "--json");
    expect(JSON.parse(listed)).toHaveLength(2);
    expect(listed).toBe(await adminBody({ url: "/admin/reports" }));
  });

  it("lists update and status", async () => {
    const updated = await cliJsonExiting(1, lists, "update", "--json");
    expect(JSON.parse(updated).sources[0].outcome).toBe("failed");
    const posted = await adminBody({ method: "POST", url: "/admin/lists/update" });
    expect(updated).toBe(posted);
    expect(await cliJson(lists, "status", "--json")).toBe(await adminBody({ url: "/admin/lists" }));
  });
});
