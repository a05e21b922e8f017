/**
 * The HTTP edges of list jobs on the real service (docs/jobs.md, docs/cleaning.md
 * "Formula cells"): a download prefixes cells that would start a formula with `'` (plain
 * numbers kept), `raw=true` gives them as uploaded; a bad `format` or `only` is a 400
 * naming the parameter and its values; the 202 carries `Location`; a job lists its
 * file's name and its download is named after it; a cancelled job's checked rows can be
 * downloaded, as many as its status says.
 */
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { createKeyIn } from "../../harness/databases.js";
import { mailZones } from "../../harness/mail-zones.js";
import { type ServiceWorld, startServiceWorld } from "../../harness/service-world.js";
import { CANARY_DOMAINS } from "../../src/service/checking/create-checker.js";

const DOMAINS = Array.from({ length: 50 }, (_, i) => `shop-${i}.com`);

let world: ServiceWorld;
let secret: string;

async function api(path: string, init: { method?: string; body?: string | FormData; type?: string } = {}) {
  const response = await fetch(`${world.service.url}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { authorization: `Bearer ${secret}`, ...(init.type ? { "content-type": init.type } : {}) },
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function waitFor(id: string, ended: (job: Record<string, unknown>) => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = JSON.parse((await api(`/v2/jobs/${id}`)).text);
    if (ended(job)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} is ${job.status} ${job.done}/${job.items}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  world = await startServiceWorld({ zones: mailZones([...CANARY_DOMAINS, ...DOMAINS], "own-server") });
  secret = await createKeyIn(world.database.location, "team", 10_000_000);
}, 90_000);

afterAll(async () => {
  const codes = await world?.stop();
  if (world) expect(codes?.every((code) => code === 0)).toBe(true);
});

describe("formula cells", () => {
  const CELLS = ["=1+2", "+A1", "-A1+1", "@x", "-5", "+1.5", "=1+2@x.org"];
  let id: string;

  it("are written with a ' in front (plain numbers kept), and as uploaded with raw=true", async () => {
    const csv = `email,note\r\n${CELLS.map((cell, i) => `user${i}@shop-1.com,${cell}`).join("\r\n")}\r\n=1+2@x.org,x\r\n`;
    const created = await api("/v2/jobs", { body: csv, type: "text/csv" });
    expect(created.status).toBe(202);
    id = JSON.parse(created.text).id;
    expect(created.headers.get("location")).toBe(`/v2/jobs/${id}`);
    await waitFor(id, (job) => job.status === "done");
    const rows = parse((await api(`/v2/jobs/${id}/results`)).text) as string[][];
    expect(rows.slice(1, 8).map((row) => row[1])).toEqual([
      "'=1+2",
      "'+A1",
      "'-A1+1",
      "'@x",
      "-5",
      "+1.5",
      "'=1+2@x.org",
    ]);
    expect(rows[8]?.[0]).toBe("'=1+2@x.org");
    const rawAnswer = await api(`/v2/jobs/${id}/results?raw=true`);
    expect(rawAnswer.status, rawAnswer.text).toBe(200);
    const raw = parse(rawAnswer.text) as string[][];
    expect(raw.slice(1, 8).map((row) => row[1])).toEqual(CELLS);
    expect(raw[8]?.[0]).toBe("=1+2@x.org");
  });

  it("answers a bad format, only or raw with 400 naming the parameter and its values", async () => {
    const format = await api(`/v2/jobs/${id}/results?format=xml`);
    expect(format.status).toBe(400);
    expect(JSON.parse(format.text).detail).toBe("The query parameter `format` takes csv or jsonl.");
    const only = await api(`/v2/jobs/${id}/results?only=invalid`);
    expect(only.status).toBe(400);
    expect(JSON.parse(only.text).detail).toBe("The query parameter `only` takes allow, block or all.");
    const raw = await api(`/v2/jobs/${id}/results?raw=maybe`);
    expect(raw.status).toBe(400);
    expect(JSON.parse(raw.text).detail).toBe("The query parameter `raw` takes true or false.");
  });
});

describe("file names", () => {
  it("lists the uploaded file's name and names the download after it", async () => {
    const form = new FormData();
    form.append("file", new Blob(["email\nuser@shop-2.com\n"], { type: "text/csv" }), "contacts.csv");
    const created = await api("/v2/jobs", { body: form });
    expect(created.status).toBe(202);
    const { id } = JSON.parse(created.text);
    const job = await waitFor(id, (found) => found.status === "done");
    expect(job.filename).toBe("contacts.csv");
    const listed = JSON.parse((await api("/v2/jobs")).text).jobs.find(
      (found: { id: string }) => found.id === id,
    );
    expect(listed.filename).toBe("contacts.csv");
    const results = await api(`/v2/jobs/${id}/results`);
    expect(results.headers.get("content-disposition")).toBe('attachment; filename="contacts.checked.csv"');
    const jsonl = await api(`/v2/jobs/${id}/results?format=jsonl`);
    expect(jsonl.headers.get("content-disposition")).toBe('attachment; filename="contacts.checked.jsonl"');
  });
});

describe("multipart uploads", () => {
  it("refuse a form without a file field (400) and a file with a line over CSV_MAX_RECORD_BYTES (413), keeping nothing", async () => {
    const before = JSON.parse((await api("/v2/jobs")).text).jobs.length;
    const empty = new FormData();
    empty.append("note", "no file here");
    const noFile = await api("/v2/jobs", { body: empty });
    expect(noFile.status).toBe(400);
    expect(JSON.parse(noFile.text)).toMatchObject({ code: "invalid_body" });
    const long = new FormData();
    long.append("file", new Blob([`email\n${"a".repeat(200_000)}\n`], { type: "text/csv" }), "long.csv");
    const tooLong = await api("/v2/jobs", { body: long });
    expect(tooLong.status).toBe(413);
    expect(JSON.parse(tooLong.text).detail).toMatch(/^Line 2 is longer than 65536 bytes/);
    expect(JSON.parse((await api("/v2/jobs")).text).jobs.length).toBe(before);
  });
});

describe("the server's spool", () => {
  it("refuses an upload that would pass JOB_SPOOL_MAX_BYTES with 503 and Retry-After, keeping nothing", async () => {
    // A second instance on the same database: stopped when this test ends, so that later tests' jobs
    // run on one instance, batch after batch, in input order.
    const small = await world.startService({ env: { JOB_SPOOL_MAX_BYTES: "4096" } });
    onTestFinished(async () => {
      expect(await small.stop()).toBe(0);
    });
    const lines = Array.from({ length: 1000 }, (_, i) => `user${i}@shop-1.com`).join("\n");
    const response = await fetch(`${small.url}/v2/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "text/plain" },
      body: lines,
    });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(await response.json()).toMatchObject({ code: "server_busy" });
    // A small one still fits.
    const fits = await fetch(`${small.url}/v2/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "text/plain" },
      body: "user@shop-1.com\n",
    });
    expect(fits.status).toBe(202);
  }, 60_000);
});

describe("a cancelled job", () => {
  it("gives the rows checked before the cancel, as many as its status says", async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => `user${i}@${DOMAINS[i % DOMAINS.length]}`);
    const created = await api("/v2/jobs", { body: `${lines.join("\n")}\n`, type: "text/plain" });
    expect(created.status).toBe(202);
    const { id } = JSON.parse(created.text);
    await waitFor(id, (job) => (job.done as number) > 0, 60_000);
    const cancelled = JSON.parse((await api(`/v2/jobs/${id}`, { method: "DELETE" })).text);
    expect(cancelled.status).toBe("cancelled");
    const job = JSON.parse((await api(`/v2/jobs/${id}`)).text);
    expect(job.done).toBeGreaterThan(0);
    expect(job.done).toBeLessThan(30_000);
    const results = await api(`/v2/jobs/${id}/results`);
    expect(results.status).toBe(200);
    const rows = parse(results.text) as string[][];
    expect(rows).toHaveLength(job.done + 1);
    // The rows checked are the first ones, in input order.
    expect(rows.slice(1).map((row) => row[0])).toEqual(lines.slice(0, job.done));
  }, 90_000);
});
