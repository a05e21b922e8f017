/**
 * Who cancelled or deleted a list job is in the audit log (docs/console.md "The audit
 * log"): the console's account, the CLI and the admin token, seen by `mailrisk audit list
 * --json`; a cancel of an ended job changes nothing and records nothing. Suspending an
 * account ends its open progress stream (docs/jobs.md "Suspension and deletion"), within
 * 2.5 s on a quiet machine (stretched by the machine's pace: harness/machine-pace.ts). On
 * both databases.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../../harness/cli-context.js";
import { DATABASE_KINDS } from "../../../harness/databases.js";
import { invitedBrowser } from "../../../harness/form-browser.js";
import { startPace } from "../../../harness/machine-pace.js";
import { run as audit } from "../../../src/cli/audit-command.js";
import { run as jobs } from "../../../src/cli/jobs-command.js";
import type { AuditEntryJson } from "../../../src/operator/audit.js";
import { type HttpFixture, openHttpFixture } from "../../http/helpers.js";

const TOKEN = "admin-token-for-tests-0123456789abcdef";

let fixture: HttpFixture;
afterEach(() => fixture.close());

async function cli(command: typeof jobs, ...args: string[]) {
  const test = createTestCli(fixture.databaseUrl);
  const code = await command(args, test.ctx);
  return { code, stdout: test.stdout(), stderr: test.stderr() };
}

/** A queued job of the account's first key, of `items` lines. */
async function queuedJob(email: string, items = 5): Promise<string> {
  const { store } = fixture;
  const account = await store.accounts.findLogin(email);
  const [key] = await store.keys.accountKeys(account?.id ?? "");
  const id = await store.jobs.startUpload({
    keyId: key?.id ?? "",
    header: '["input"]',
    layout: "{}",
    now: fixture.clock.now(),
  });
  const lines = Array.from({ length: items }, (_, i) => ({ input: `u${i}@example.com`, row: "{}" }));
  await store.jobs.addBatch(id, 0, lines);
  await store.jobs.queueJob(id, items, fixture.clock.now());
  return id;
}

async function auditLog(): Promise<AuditEntryJson[]> {
  const listed = await cli(audit, "list", "--action", "job", "--json");
  expect(listed.code, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout);
}

describe.each(DATABASE_KINDS)("list jobs' changes (%s)", (kind) => {
  it("audits a cancel and a delete from the console, the CLI and the admin API with their actor", async () => {
    fixture = await openHttpFixture({ kind, signup: "invite", adminToken: TOKEN });
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const [inConsole, byCli, byAdmin] = [
      await queuedJob("ann@example.com"),
      await queuedJob("ann@example.com"),
      await queuedJob("ann@example.com"),
    ];

    const page = await ann.get("/account/jobs");
    expect((await ann.post(`/account/jobs/${inConsole}/cancel`, {}, page.body)).statusCode).toBe(303);
    expect((await ann.post(`/account/jobs/${inConsole}/delete`, {}, page.body)).statusCode).toBe(303);
    expect(await cli(jobs, "cancel", byCli, "--json")).toMatchObject({ code: 0 });
    const cancelled = await fixture.app.inject({
      method: "POST",
      url: `/admin/jobs/${byAdmin}/cancel`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    // Ended already: nothing changes, nothing is recorded.
    expect(await cli(jobs, "cancel", byCli)).toMatchObject({ code: 0 });

    const entries = await auditLog();
    expect(entries.map((e) => [e.actor, e.action, e.entity_kind, e.entity_id])).toEqual([
      ["admin-token", "job.cancel", "job", byAdmin],
      ["cli", "job.cancel", "job", byCli],
      ["ann@example.com", "job.delete", "job", inConsole],
      ["ann@example.com", "job.cancel", "job", inConsole],
    ]);
    expect(entries[3]?.detail).toMatchObject({ status: "cancelled", items: 5, done: 0 });
    expect(await fixture.store.jobs.getJob(inConsole)).toBeUndefined();
  });

  it("ends an open progress stream when the account is suspended", async () => {
    fixture = await openHttpFixture({ kind, signup: "invite", adminToken: TOKEN });
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const id = await queuedJob("ann@example.com");
    const base = await fixture.app.listen({ host: "127.0.0.1", port: 0 });
    const response = await fetch(`${base}/account/jobs/progress`, {
      headers: { cookie: ann.cookieHeader() },
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    // The stream follows the queued job: its first event comes at once.
    while (!text.includes(id)) text += new TextDecoder().decode((await reader.read()).value);

    const suspended = await fetch(`${base}/admin/accounts/ann@example.com/suspend`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(suspended.status).toBe(200);
    expect((await fixture.store.jobs.getJob(id))?.status).toBe("paused");
    const pace = startPace();
    const started = Date.now();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    // Ended within a read of the stream, without saying the jobs ended.
    expect(Date.now() - started).toBeLessThan(pace.bound(2500));
    expect(text).not.toContain("event: end");
  });
});
