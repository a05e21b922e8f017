/**
 * List jobs on the real service (docs/jobs.md): a 20,000-line CSV (100,000 lines in
 * `npm run test:soak`; quoted cells, CRLF, fresh and cached domains) runs to done, its
 * results keep every row in input order with its cells, `only=allow` keeps exactly the
 * allowed rows, and the key's usage grew by as many units; `job.completed` arrives signed;
 * the refusals count and keep nothing.
 */
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyIn } from "../../harness/databases.js";
import { mailZones } from "../../harness/mail-zones.js";
import { type ServiceWorld, startServiceWorld } from "../../harness/service-world.js";
import { soakSize } from "../../harness/soak.js";
import { startWebhookReceiver, type WebhookReceiver } from "../../harness/webhook-receiver.js";
import { CANARY_DOMAINS } from "../../src/service/checking/create-checker.js";
import { verifyWebhook } from "../../src/service/webhooks/webhook-signature.js";
import { openStore } from "../../src/store/index.js";

const ROWS = soakSize(20_000, 100_000);
const DOMAINS = Array.from({ length: 300 }, (_, i) => `shop-${i}.com`);
const WEBHOOK_SECRET = "a-webhook-secret-of-some-length";

let world: ServiceWorld;
let receiver: WebhookReceiver;
let secret: string;
let other: string;
let publishable: string;

function inputOf(i: number): string {
  if (i % 1000 === 7) return "not an address";
  if (i % 500 === 3) return `someone${i}@mailinator.com`;
  return `user${i}@${DOMAINS[i % DOMAINS.length]}`;
}

/** The uploaded file: a quoted name with a comma, the address, a note with quotes; CRLF. */
function bigCsv(): string {
  const lines = ["name,email,note"];
  for (let i = 0; i < ROWS; i++) lines.push(`"Person, ${i}",${inputOf(i)},"said ""hi"" ${i}"`);
  return `${lines.join("\r\n")}\r\n`;
}

async function api(path: string, init: { method?: string; body?: string; type?: string; key?: string } = {}) {
  const response = await fetch(`${world.service.url}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      authorization: `Bearer ${init.key ?? secret}`,
      ...(init.type ? { "content-type": init.type } : {}),
    },
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function used(key: string): Promise<number> {
  return JSON.parse((await api("/v2/usage", { key })).text).used;
}

async function waitUntilEnded(id: string, timeoutMs: number, key = secret): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = JSON.parse((await api(`/v2/jobs/${id}`, { key })).text);
    if (!["queued", "running"].includes(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status}: ${job.done}/${job.items}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  world = await startServiceWorld({
    zones: mailZones([...CANARY_DOMAINS, ...DOMAINS], "own-server"),
    env: { JOB_MAX_BYTES: "8MB", JOB_MAX_ITEMS: "150000" },
  });
  secret = await createKeyIn(world.database.location, "team", 1_000_000);
  other = await createKeyIn(world.database.location, "small", 3);
  const store = await openStore(world.database.location);
  try {
    const key = await store.keys.createKey({
      plan: "team",
      now: new Date(),
      publishable: true,
      origins: ["https://shop.example"],
    });
    publishable = key.secret;
    await store.webhooks.createWebhook({
      url: receiver.url,
      secret: WEBHOOK_SECRET,
      events: ["job.completed"],
      now: new Date(),
    });
  } finally {
    await store.close();
  }
}, 90_000);

afterAll(async () => {
  const codes = await world?.stop();
  await receiver?.close();
  if (world) expect(codes).toEqual([0]);
});

describe(`a ${ROWS.toLocaleString("en")}-line CSV`, () => {
  let id: string;
  const before = { used: 0 };

  it("is stored and queued, counting one unit per line; its results wait for done (409)", async () => {
    before.used = await used(secret);
    const created = await api("/v2/jobs", { body: bigCsv(), type: "text/csv" });
    expect(created.status).toBe(202);
    expect(created.headers.get("x-ratelimit-requests-remaining")).toBe(
      String(1_000_000 - before.used - ROWS),
    );
    const body = JSON.parse(created.text);
    expect(body).toEqual({ id: expect.stringMatching(/^job_/), status: "queued", items: ROWS });
    id = body.id;
    const early = await api(`/v2/jobs/${id}/results`);
    expect(early.status).toBe(409);
    expect(JSON.parse(early.text).code).toBe("job_not_done");
    expect(await used(secret)).toBe(before.used + ROWS);
  }, 60_000);

  it("runs to done with every row in input order and its cells intact", async () => {
    const job = await waitUntilEnded(id, 60_000);
    expect(job).toMatchObject({ id, status: "done", items: ROWS, done: ROWS });
    const counts = job.counts as { allow: number; block: number; invalid: number; unknown: number };
    // One input in 1,000 is not an address.
    expect(counts.invalid).toBe(ROWS / 1000);
    expect(counts.allow + counts.block + counts.invalid + counts.unknown).toBe(ROWS);
    const results = await api(`/v2/jobs/${id}/results?format=csv`);
    expect(results.status).toBe(200);
    expect(results.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(results.text.endsWith("\r\n")).toBe(true);
    const rows = parse(results.text) as string[][];
    expect(rows[0]?.slice(0, 5)).toEqual(["name", "email", "note", "mr_valid", "mr_block"]);
    expect(rows).toHaveLength(ROWS + 1);
    for (let i = 0; i < ROWS; i++) {
      const row = rows[i + 1] as string[];
      if (row[0] !== `Person, ${i}` || row[1] !== inputOf(i) || row[2] !== `said "hi" ${i}`) {
        throw new Error(`row ${i} is ${JSON.stringify(row)}`);
      }
    }
    const allowed = parse((await api(`/v2/jobs/${id}/results?only=allow`)).text) as string[][];
    expect(allowed).toHaveLength(counts.allow + 1);
    expect(allowed.slice(1).every((row) => row[4] === "false")).toBe(true);
    const lines = (await api(`/v2/jobs/${id}/results?format=jsonl&only=block`)).text.trim().split("\n");
    expect(lines).toHaveLength(counts.block + counts.invalid);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      input: inputOf(3),
      block: true,
      is_disposable: true,
    });
    expect(await used(secret)).toBe(before.used + ROWS);
  }, 90_000);

  it("announces itself with a signed job.completed", async () => {
    const [event] = await receiver.waitFor(
      (received) => received.some((r) => r.json.type === "job.completed"),
      10_000,
    );
    const hook = receiver.received.find((r) => r.json.type === "job.completed") ?? event;
    if (!hook) throw new Error("no job.completed");
    const signature = String(hook.headers["mailrisk-signature"]);
    expect(verifyWebhook(WEBHOOK_SECRET, hook.body, signature, new Date())).toBe(true);
    expect(hook.json.job).toMatchObject({ id, status: "done", items: ROWS, done: ROWS });
  });

  it("is listed for its key only, and another key's request for it is a 404", async () => {
    const listed = JSON.parse((await api("/v2/jobs")).text);
    expect(listed.jobs.map((job: { id: string }) => job.id)).toContain(id);
    expect(JSON.parse((await api("/v2/jobs", { key: other })).text)).toEqual({ jobs: [] });
    for (const path of [`/v2/jobs/${id}`, `/v2/jobs/${id}/results`]) {
      const refused = await api(path, { key: other });
      expect(refused.status).toBe(404);
      expect(JSON.parse(refused.text).code).toBe("unknown_job");
    }
    expect((await api(`/v2/jobs/${id}`, { key: other, method: "DELETE" })).status).toBe(404);
  });

  it("is deleted with its results once ended", async () => {
    expect((await api(`/v2/jobs/${id}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`/v2/jobs/${id}`)).status).toBe(404);
  });
});

describe("refusals keep and count nothing", () => {
  it("refuses an upload over JOB_MAX_BYTES with 413", async () => {
    const before = await used(secret);
    const big = `${"x".repeat(99)}\n`.repeat(90_000);
    const refused = await api("/v2/jobs", { body: big, type: "text/plain" });
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.text).code).toBe("body_too_large");
    expect(await used(secret)).toBe(before);
  });

  it("refuses an upload over JOB_MAX_ITEMS with 413", async () => {
    const before = await used(secret);
    const refused = await api("/v2/jobs", { body: "a.io\n".repeat(150_001), type: "text/plain" });
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.text).detail).toMatch(/JOB_MAX_ITEMS/);
    expect(await used(secret)).toBe(before);
    expect(JSON.parse((await api("/v2/jobs")).text).jobs).toHaveLength(0);
  });

  it("refuses an empty list and a CSV without an address column with 400", async () => {
    for (const [body, type] of [
      ["", "text/plain"],
      ["\n\n", "text/plain"],
      ["name,city\r\nAda,London\r\n", "text/csv"],
    ] as const) {
      const refused = await api("/v2/jobs", { body, type });
      expect(refused.status, body).toBe(400);
      expect(JSON.parse(refused.text).code).toBe("invalid_body");
    }
  });

  it("refuses with 429 and counts nothing when fewer units are left than items", async () => {
    const refused = await api("/v2/jobs", {
      body: "a.com\nb.com\nc.com\nd.com\n",
      type: "text/plain",
      key: other,
    });
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.text).code).toBe("quota_exceeded");
    expect(refused.headers.get("x-ratelimit-requests-remaining")).toBe("3");
    expect(await used(other)).toBe(0);
    expect(JSON.parse((await api("/v2/jobs", { key: other })).text)).toEqual({ jobs: [] });
  });

  it("refuses other bodies with 415, and publishable keys with 403", async () => {
    const wrong = await api("/v2/jobs", { body: '{"items":["a.com"]}', type: "application/json" });
    expect(wrong.status).toBe(415);
    const refused = await api("/v2/jobs", { body: "a.com\n", type: "text/plain", key: publishable });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text).code).toBe("publishable_key_not_allowed");
  });
});

describe("small uploads", () => {
  it("takes text/plain and a multipart file, and answers a text upload with an input column", async () => {
    const text = await api("/v2/jobs", {
      body: "shop-1.com\r\n\r\nnot an address\r\n",
      type: "text/plain",
      key: other,
    });
    expect(text.status).toBe(202);
    const { id } = JSON.parse(text.text);
    const job = await waitUntilEnded(id, 20_000, other);
    expect(job).toMatchObject({ status: "done", items: 2, counts: { allow: 1, invalid: 1 } });
    const rows = parse((await api(`/v2/jobs/${id}/results`, { key: other })).text) as string[][];
    expect(rows.map((row) => row.slice(0, 3))).toEqual([
      ["input", "mr_valid", "mr_block"],
      ["shop-1.com", "true", "false"],
      ["not an address", "false", "true"],
    ]);
    const form = new FormData();
    form.append("note", "ignored");
    form.append("file", new Blob(["email\nuser@shop-2.com\n"], { type: "text/csv" }), "list.csv");
    const response = await fetch(`${world.service.url}/v2/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}` },
      body: form,
    });
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ status: "queued", items: 1 });
  });

  it("cancels a queued job and gives its unchecked units back", async () => {
    const before = await used(secret);
    const lines = Array.from({ length: 20_000 }, (_, i) => `user${i}@shop-${i % 300}.com`).join("\n");
    const { id } = JSON.parse((await api("/v2/jobs", { body: lines, type: "text/plain" })).text);
    const cancelled = await api(`/v2/jobs/${id}`, { method: "DELETE" });
    expect(cancelled.status).toBe(200);
    const job = JSON.parse(cancelled.text);
    expect(job.status).toBe("cancelled");
    expect(await used(secret)).toBe(before + job.done);
  });
});
