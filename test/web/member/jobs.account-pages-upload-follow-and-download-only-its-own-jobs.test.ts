/**
 * List jobs on the account's pages (docs/jobs.md "On the account's pages"): an upload on /account/jobs
 * becomes the account's job, counted on its quota; the progress stream follows it to
 * done; the downloads keep all, the allowed or the blocked rows; another account gets 404
 * on every route of it; a cross-origin upload is refused before a byte is stored; a bad
 * file is told beside the `File` field. A server's close ends an open progress stream
 * within 1.5 s on a quiet machine (stretched by the machine's pace: harness/machine-pace.ts).
 */
import { parse } from "csv-parse/sync";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { csrfOf, type FormBrowser, invitedBrowser, TEST_ORIGIN } from "../../../harness/form-browser.js";
import { startPace } from "../../../harness/machine-pace.js";
import { sampleRecord } from "../../../harness/sample-record.js";
import { JobRunner } from "../../../src/service/jobs/job-runner.js";
import { fakeChecker, type HttpFixture, openHttpFixture } from "../../http/helpers.js";

const BOUNDARY = "----mailrisk-test-boundary";

let fixture: HttpFixture;
let runner: JobRunner;

beforeEach(async () => {
  // Domains starting `bad` are blocked.
  const checker = fakeChecker((input) => ({
    record: sampleRecord({
      domain: input.domain,
      base_domain: input.domain,
      block: input.domain.startsWith("bad"),
    }),
    cache: "hit",
  }));
  fixture = await openHttpFixture({ signup: "invite", checker });
  runner = new JobRunner({
    jobs: fixture.store.jobs,
    checker,
    holder: "test",
    retentionMs: 86_400_000,
    everyMs: 20,
    testNames: false,
  });
});
afterEach(async () => {
  await runner.stop();
  await fixture.close();
});

function multipart(filename: string, content: string, type = "text/csv"): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`;
}

/** Uploads `content` as the `File` of the jobs page `page`, with the form's action (its CSRF token). */
async function upload(browser: FormBrowser, page: string, content: string, origin = TEST_ORIGIN) {
  const action = /action="(\/account\/jobs\?csrf=[^"]+)"/.exec(page)?.[1]?.replaceAll("&amp;", "&") ?? "";
  expect(action).not.toBe("");
  const answer = await fixture.app.inject({
    method: "POST",
    url: action,
    headers: {
      cookie: browser.cookieHeader(),
      origin,
      "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
      accept: "text/html",
    },
    payload: multipart("contacts.csv", content),
  });
  return answer;
}

function contacts(rows: number): string {
  const lines = ["name,email"];
  for (let i = 0; i < rows; i++)
    lines.push(`"Person, ${i}",user${i}@${i % 3 === 0 ? "bad" : "good"}-${i}.com`);
  return `${lines.join("\n")}\n`;
}

/** The jobs of the page, as the progress script reads them: id, status, progress. */
function jobsOf(html: string) {
  return [
    ...html.matchAll(
      /<tr id="job-([^"]+)" data-job="[^"]+" data-status="([^"]+)">[\s\S]*?<progress max="(\d+)" value="(\d+)"/g,
    ),
  ].map(([, id, status, max, value]) => ({ id, status, max: Number(max), value: Number(value) }));
}

describe("list jobs in the console", () => {
  it("uploads a list, follows it to done by the progress stream, and downloads all, allowed and blocked rows", async () => {
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const page = await ann.get("/account/jobs");
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<label for="f-file">File</label>');
    expect(page.body).toContain('enctype="multipart/form-data"');
    expect(page.body).toContain('<button type="submit">Upload</button>');
    expect(page.body).toContain('<a href="/account/jobs">Jobs</a>');
    const policy = String(page.headers["content-security-policy"]);
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("default-src 'none'");

    const uploaded = await upload(ann, page.body, contacts(30));
    expect(uploaded.statusCode, uploaded.body).toBe(303);
    expect(uploaded.headers.location).toBe("/account/jobs");
    const listed = await ann.get("/account/jobs");
    const [job] = jobsOf(listed.body);
    expect(job).toMatchObject({ status: "queued", max: 30, value: 0 });
    const id = job?.id ?? "";
    expect(listed.body).toContain(`aria-label="Progress of list job ${id}"`);
    expect(listed.body).toMatch(/<ul class="links" data-downloads hidden>/);
    // Counted on the account's quota at upload, one unit per line.
    expect((await ann.get("/account")).body).toContain("<span data-quota-used>30</span> of 1,000");

    runner.start();
    const stream = await ann.get("/account/jobs/progress", "text/event-stream");
    expect(stream.headers["content-type"]).toMatch(/^text\/event-stream/);
    const events = stream.body.split("\n\n").filter((event) => event.startsWith("event: job"));
    const last = JSON.parse(events.at(-1)?.split("data: ")[1] ?? "{}");
    expect(last).toMatchObject({ id, status: "done", items: 30, done: 30, counts: { allow: 20, block: 10 } });
    expect(stream.body.trimEnd().endsWith("event: end\ndata: {}")).toBe(true);

    const status = await ann.get(`/account/jobs/${id}`, "application/json");
    expect(status.json()).toEqual(last);
    const done = await ann.get("/account/jobs");
    expect(jobsOf(done.body)[0]).toMatchObject({ status: "done", max: 30, value: 30 });
    expect(done.body).toContain(`<ul class="links" data-downloads><li><a href="/account/jobs/${id}/results"`);

    const all = await ann.get(`/account/jobs/${id}/results`);
    expect(all.headers["content-disposition"]).toBe(`attachment; filename="contacts.checked.csv"`);
    const rows = parse(all.body, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(30);
    expect(rows[0]).toMatchObject({ name: "Person, 0", email: "user0@bad-0.com", mr_block: "true" });
    const allowed = await ann.get(`/account/jobs/${id}/results?only=allow`);
    expect(allowed.headers["content-disposition"]).toBe(
      `attachment; filename="contacts-allowed.checked.csv"`,
    );
    const allowedRows = parse(allowed.body, { columns: true }) as Record<string, string>[];
    expect(allowedRows.map((row) => row.email)).toEqual(
      rows.filter((row) => row.mr_block === "false").map((row) => row.email),
    );
    expect(allowedRows).toHaveLength(20);
    const blocked = parse((await ann.get(`/account/jobs/${id}/results?only=block`)).body, {
      columns: true,
    }) as Record<string, string>[];
    expect(blocked.map((row) => row.email)).toEqual(
      rows.filter((row) => row.mr_block === "true").map((row) => row.email),
    );
    expect(blocked).toHaveLength(10);

    const deleted = await ann.post(`/account/jobs/${id}/delete`, {}, done.body);
    expect(deleted.statusCode).toBe(303);
    expect(jobsOf((await ann.get("/account/jobs")).body)).toEqual([]);
  });

  it("answers 404 to another account on the status, results, cancel and delete of a job, and shows it none", async () => {
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const bob = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "bob@example.com");
    const page = await ann.get("/account/jobs");
    expect((await upload(ann, page.body, contacts(5))).statusCode).toBe(303);
    const id = jobsOf((await ann.get("/account/jobs")).body)[0]?.id ?? "";
    const bobsPage = await bob.get("/account/jobs");
    expect(bobsPage.body).not.toContain(id);
    expect((await bob.get(`/account/jobs/${id}`, "application/json")).statusCode).toBe(404);
    expect((await bob.get(`/account/jobs/${id}/results`)).statusCode).toBe(404);
    expect((await bob.post(`/account/jobs/${id}/cancel`, {}, bobsPage.body)).statusCode).toBe(404);
    expect((await bob.post(`/account/jobs/${id}/delete`, {}, bobsPage.body)).statusCode).toBe(404);
    expect((await bob.get("/account/jobs/job_unknown", "application/json")).statusCode).toBe(404);
    expect((await ann.get(`/account/jobs/${id}`, "application/json")).json()).toMatchObject({
      id,
      status: "queued",
    });
    // Ann's own cancel works: a queued job is cancelled, its units given back.
    const cancelled = await ann.post(`/account/jobs/${id}/cancel`, {}, page.body);
    expect(cancelled.statusCode).toBe(303);
    expect(jobsOf((await ann.get("/account/jobs")).body)[0]).toMatchObject({ id, status: "cancelled" });
    expect((await ann.get("/account")).body).toContain("<span data-quota-used>0</span> of 1,000");
  });

  it("refuses an upload from another origin or without the token before storing a byte (403 csrf_failed)", async () => {
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const page = await ann.get("/account/jobs");
    const started = vi.spyOn(fixture.store.jobs, "startUpload");
    const foreign = await upload(ann, page.body, contacts(5), "https://evil.example");
    expect(foreign.statusCode).toBe(403);
    expect(foreign.body).toContain("csrf_failed");
    const withoutToken = await upload(ann, page.body.replace(/\?csrf=[^"]+"/, '?csrf=wrong"'), contacts(5));
    expect(withoutToken.statusCode).toBe(403);
    expect(started).not.toHaveBeenCalled();
    expect(jobsOf((await ann.get("/account/jobs")).body)).toEqual([]);
    expect(csrfOf(page.body)).not.toBe("");
  });

  it("tells an empty file, a CSV without an address column and a list over the quota beside the File field, counting nothing", async () => {
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const page = await ann.get("/account/jobs");
    const beside = (html: string) =>
      /<input id="f-file"[^>]*aria-describedby="f-file-hint f-file-error" aria-invalid="true">\n<p class="field-error" id="f-file-error">([^<]*)<\/p>/.exec(
        html,
      )?.[1];
    const empty = await upload(ann, page.body, "");
    expect(empty.statusCode).toBe(400);
    expect(beside(empty.body)).toMatch(/empty/i);
    const noColumn = await upload(ann, page.body, "name,phone\nAnn,123\n");
    expect(noColumn.statusCode).toBe(400);
    expect(beside(noColumn.body)).toMatch(
      /^No column named like an address .*name it email in the header row/,
    );
    const tooMany = await upload(ann, page.body, contacts(1001));
    expect(tooMany.statusCode).toBe(429);
    expect(beside(tooMany.body)).toMatch(
      /needs 1001 units of quota and 1000 are left of 1000 per period; nothing was counted/,
    );
    expect(jobsOf((await ann.get("/account/jobs")).body)).toEqual([]);
    expect((await ann.get("/account")).body).toContain("<span data-quota-used>0</span> of 1,000");
  });

  it("ends a progress stream when the server closes, so it holds no shutdown", async () => {
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const page = await ann.get("/account/jobs");
    expect((await upload(ann, page.body, contacts(5))).statusCode).toBe(303);
    const base = await fixture.app.listen({ host: "127.0.0.1", port: 0 });
    const response = await fetch(`${base}/account/jobs/progress`, {
      headers: { cookie: ann.cookieHeader() },
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("retry: 2000");
    const pace = startPace();
    const started = Date.now();
    await fixture.app.close();
    expect(Date.now() - started).toBeLessThan(pace.bound(1500));
    await reader.cancel().catch(() => undefined);
  });

  it("shows the upload form to an account whose keys are all revoked: the job needs no key", async () => {
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const keysPage = await ann.get("/account/keys");
    const ids = [...keysPage.body.matchAll(/href="\/account\/keys\/([^/"]+)\/revoke"/g)].map(([, id]) => id);
    for (const id of ids)
      expect((await ann.post(`/account/keys/${id}/revoke`, {}, keysPage.body)).statusCode).toBe(303);
    const page = await ann.get("/account/jobs");
    expect(page.body).toContain('id="f-file"');
    expect(page.body).toContain("The job belongs to your account");
    expect(page.body).not.toContain("no secret key");
  });
});
