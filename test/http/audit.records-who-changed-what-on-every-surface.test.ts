/**
 * The audit log (docs/console.md "The audit log"): a change made with the CLI is
 * recorded as `cli`, one made through the admin API as `admin-token`, newest first,
 * searchable by actor, action and entity, never with a secret; on both databases.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { DATABASE_KINDS } from "../../harness/databases.js";
import { run as audit } from "../../src/cli/audit-command.js";
import { run as keys } from "../../src/cli/keys-command.js";
import { run as reports } from "../../src/cli/reports-command.js";
import type { AuditEntryJson } from "../../src/operator/audit.js";
import { type HttpFixture, openHttpFixture } from "./helpers.js";

const TOKEN = "admin-token-for-tests-0123456789abcdef";

let fixture: HttpFixture;
afterEach(() => fixture.close());

async function cli(command: typeof keys, ...args: string[]) {
  const test = createTestCli(fixture.databaseUrl);
  const code = await command(args, test.ctx);
  return { code, stdout: test.stdout(), stderr: test.stderr() };
}

function admin(method: "GET" | "POST", url: string, payload?: object) {
  return fixture.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${TOKEN}` },
    ...(payload ? { payload } : {}),
  });
}

async function auditLog(query = ""): Promise<AuditEntryJson[]> {
  const answer = await admin("GET", `/admin/audit${query}`);
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json();
}

/** Files an open report of `domain` with a new key; its id. */
async function fileReport(domain: string, expected: "allow" | "block"): Promise<string> {
  const { id: keyId } = await fixture.newKey();
  const filed = await fixture.store.reports.fileReport(
    { keyId, domain, expected, note: null, filedAt: fixture.clock.now() },
    { max: 10, windowMs: 86_400_000 },
  );
  if (!("report" in filed)) throw new Error(filed.outcome);
  return filed.report.id;
}

describe.each(DATABASE_KINDS)("the audit log (%s)", (kind) => {
  it("records a key created and revoked with the CLI as cli, never with its secret", async () => {
    fixture = await openHttpFixture({ kind, adminToken: TOKEN });
    const created = await cli(keys, "create", "--plan", "free", "--name", "shop", "--json");
    const { id, key: secret } = JSON.parse(created.stdout) as { id: string; key: string };
    expect(await cli(keys, "revoke", id)).toMatchObject({ code: 0 });

    const entries = await auditLog();
    expect(entries.map((e) => [e.actor, e.action, e.entity_kind, e.entity_id])).toEqual([
      ["cli", "key.revoke", "key", id],
      ["cli", "key.create", "key", id],
    ]);
    expect(entries[1]?.detail).toMatchObject({ plan: "free", name: "shop", publishable: false });
    expect(JSON.stringify(entries)).not.toContain(secret);
  });

  it("records an override set through the admin API as admin-token", async () => {
    fixture = await openHttpFixture({ kind, adminToken: TOKEN });
    const set = await admin("POST", "/admin/overrides", {
      kind: "domain",
      value: "Spam.Example",
      action: "deny",
    });
    expect(set.statusCode).toBe(201);
    expect(await auditLog()).toEqual([
      expect.objectContaining({
        actor: "admin-token",
        action: "override.set",
        entity_kind: "override",
        entity_id: "domain:spam.example",
        detail: { action: "deny", note: null },
      }),
    ]);
  });

  it("records a report accepted on each surface with its actor, and searches", async () => {
    fixture = await openHttpFixture({ kind, adminToken: TOKEN });
    const byCli = await fileReport("mailinator.com", "allow");
    const byAdmin = await fileReport("gmail.com", "block");
    expect(await cli(reports, "accept", byCli)).toMatchObject({ code: 0 });
    expect((await admin("POST", `/admin/reports/${byAdmin}/accept`, {})).statusCode).toBe(200);

    expect((await auditLog("?action=report")).map((e) => [e.actor, e.entity_id])).toEqual([
      ["admin-token", byAdmin],
      ["cli", byCli],
    ]);
    expect((await auditLog(`?entity=report:${byCli}`))[0]?.detail).toMatchObject({
      domain: "mailinator.com",
      override: { id: "domain:mailinator.com", action: "allow" },
    });
    expect((await auditLog("?actor=cli&action=report.accept")).map((e) => e.entity_id)).toEqual([byCli]);
    expect(await auditLog("?actor=nobody")).toEqual([]);
    expect(await auditLog("?limit=1")).toHaveLength(1);
  });

  it("refuses a limit out of range on both surfaces", async () => {
    fixture = await openHttpFixture({ kind, adminToken: TOKEN });
    const answer = await admin("GET", "/admin/audit?limit=0");
    expect(answer.statusCode).toBe(400);
    expect(answer.headers["content-type"]).toContain("application/problem+json");
    expect(answer.json()).toMatchObject({ code: "invalid_body" });
    expect(await cli(audit, "list", "--limit", "0")).toMatchObject({ code: 2 });
    expect(await cli(audit, "list", "--limit", "many")).toMatchObject({ code: 2 });
  });
});
