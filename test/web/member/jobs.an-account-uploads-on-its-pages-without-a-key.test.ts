/**
 * The account's list jobs are the account's own (docs/jobs.md "On the account's pages"): an
 * invited account uploads on /account/jobs without making a key, and so does one whose
 * keys are all revoked; the job is filed under no key, the runner checks it to done, the
 * download has every row, the units are counted on the account's count, and the
 * account's keys list it with `GET /v2/jobs` while a key without an account does not.
 */
import { parse } from "csv-parse/sync";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../../../harness/databases.js";
import { type FormBrowser, invitedBrowser, TEST_ORIGIN } from "../../../harness/form-browser.js";
import { sampleRecord } from "../../../harness/sample-record.js";
import { JobRunner } from "../../../src/service/jobs/job-runner.js";
import { fakeChecker, type HttpFixture, openHttpFixture } from "../../http/helpers.js";

const BOUNDARY = "----mailrisk-console-job";

function contacts(rows: number): string {
  const lines = ["name,email"];
  for (let i = 0; i < rows; i++) lines.push(`Person ${i},user${i}@${i % 4 === 0 ? "bad" : "good"}-${i}.com`);
  return `${lines.join("\n")}\n`;
}

describe.each(DATABASE_KINDS)("an account's own list jobs in the console (%s)", (kind) => {
  let fixture: HttpFixture;
  let runner: JobRunner | undefined;

  afterEach(async () => {
    await runner?.stop();
    runner = undefined;
    await fixture.close();
  });

  async function open() {
    const checker = fakeChecker((input) => ({
      record: sampleRecord({
        domain: input.domain,
        base_domain: input.domain,
        block: input.domain.startsWith("bad"),
      }),
      cache: "hit",
    }));
    fixture = await openHttpFixture({ kind, signup: "invite", checker });
    runner = new JobRunner({
      jobs: fixture.store.jobs,
      checker,
      holder: "test",
      retentionMs: 86_400_000,
      everyMs: 20,
      testNames: false,
    });
  }

  async function upload(browser: FormBrowser, content: string) {
    const page = await browser.get("/account/jobs");
    const action =
      /action="(\/account\/jobs\?csrf=[^"]+)"/.exec(page.body)?.[1]?.replaceAll("&amp;", "&") ?? "";
    expect(action).not.toBe("");
    return fixture.app.inject({
      method: "POST",
      url: action,
      headers: {
        cookie: browser.cookieHeader(),
        origin: TEST_ORIGIN,
        "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
        accept: "text/html",
      },
      payload: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="contacts.csv"\r\nContent-Type: text/csv\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`,
    });
  }

  async function accountOf(email: string) {
    const [account] = await fixture.store.accounts.listAccounts({ search: email, limit: 1 });
    if (!account) throw new Error(`no account ${email}`);
    return account;
  }

  /** Follows the progress stream to its end; the last state of the one job. */
  async function followToDone(browser: FormBrowser) {
    runner?.start();
    const stream = await browser.get("/account/jobs/progress", "text/event-stream");
    const events = stream.body.split("\n\n").filter((event) => event.startsWith("event: job"));
    expect(stream.body.trimEnd().endsWith("event: end\ndata: {}")).toBe(true);
    return JSON.parse(events.at(-1)?.split("data: ")[1] ?? "{}");
  }

  it("takes an invited account's upload as the account's job, under no key, runs it to 100 % and downloads every row", async () => {
    await open();
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const uploaded = await upload(ann, contacts(40));
    expect(uploaded.statusCode, uploaded.body).toBe(303);

    const account = await accountOf("ann@example.com");
    const [stored] = await fixture.store.jobs.listJobs({ kind: "account", id: account.id }, 10);
    expect(stored).toMatchObject({ keyId: null, owner: { kind: "account", id: account.id }, items: 40 });
    // Counted on the account's own count, one unit per line.
    expect(await fixture.store.usage.authorizeAccount(account.id, fixture.clock.now(), 0)).toMatchObject({
      used: 40,
      remaining: 960,
    });
    expect((await ann.get("/account")).body).toContain("<span data-quota-used>40</span> of 1,000");

    const last = await followToDone(ann);
    expect(last).toMatchObject({ id: stored?.id, status: "done", items: 40, done: 40 });
    expect(last.counts).toMatchObject({ allow: 30, block: 10 });
    const results = await ann.get(`/account/jobs/${stored?.id}/results`);
    expect(results.statusCode).toBe(200);
    const rows = parse(results.body, { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => row.email)).toEqual(
      Array.from({ length: 40 }, (_, i) => `user${i}@${i % 4 === 0 ? "bad" : "good"}-${i}.com`),
    );

    // The account's keys see the account's jobs, the console's included; a key without an account does not.
    const { secret } = await fixture.store.keys.createKey({
      plan: "free",
      now: fixture.clock.now(),
      accountId: account.id,
    });
    const listed = await fixture.app.inject({
      method: "GET",
      url: "/v2/jobs",
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().jobs.map((job: { id: string }) => job.id)).toEqual([stored?.id]);
    const stranger = await fixture.store.keys.createKey({ plan: "free", now: fixture.clock.now() });
    const strangers = await fixture.app.inject({
      method: "GET",
      url: `/v2/jobs/${stored?.id}`,
      headers: { authorization: `Bearer ${stranger.secret}` },
    });
    expect(strangers.statusCode).toBe(404);
  });

  it("takes the upload of an account whose keys are all revoked, and gives back the units of a cancelled job to the account", async () => {
    await open();
    const bob = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "bob@example.com");
    const account = await accountOf("bob@example.com");
    for (const key of await fixture.store.keys.accountKeys(account.id))
      await fixture.store.keys.revokeKey(key.id, fixture.clock.now());
    const uploaded = await upload(bob, contacts(25));
    expect(uploaded.statusCode, uploaded.body).toBe(303);
    const [job] = await fixture.store.jobs.listJobs({ kind: "account", id: account.id }, 10);
    expect(job).toMatchObject({ keyId: null, status: "queued", items: 25 });
    expect((await bob.get("/account")).body).toContain("<span data-quota-used>25</span> of 1,000");

    // A cancel gives the unchecked units back to the account's count.
    const page = await bob.get("/account/jobs");
    expect((await bob.post(`/account/jobs/${job?.id}/cancel`, {}, page.body)).statusCode).toBe(303);
    expect((await bob.get("/account")).body).toContain("<span data-quota-used>0</span> of 1,000");

    const again = await upload(bob, contacts(25));
    expect(again.statusCode, again.body).toBe(303);
    const last = await followToDone(bob);
    expect(last).toMatchObject({ status: "done", items: 25, done: 25 });
    // The done one: both jobs may carry the same (test clock's) time, so the list's order is no guide.
    const jobs = await fixture.store.jobs.listJobs({ kind: "account", id: account.id }, 10);
    const done = jobs.find((listed) => listed.status === "done");
    const rows = parse((await bob.get(`/account/jobs/${done?.id}/results`)).body, { columns: true });
    expect(rows).toHaveLength(25);
    expect((await bob.get("/account")).body).toContain("<span data-quota-used>25</span> of 1,000");
  });

  it("refuses an upload over what is left of the account's count (429), counting nothing", async () => {
    await open();
    const cy = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "cy@example.com");
    expect((await upload(cy, contacts(990))).statusCode).toBe(303);
    const over = await upload(cy, contacts(11));
    expect(over.statusCode).toBe(429);
    expect((await cy.get("/account")).body).toContain("<span data-quota-used>990</span> of 1,000");
  });
});
