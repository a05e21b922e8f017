/**
 * Reports of wrong answers over HTTP (docs/api.md "Reports of wrong answers", "Administration") on the real service, DNS
 * over the wire to the loopback server: filing counts nothing against the quota, but a
 * used-up quota files nothing, a key's second open report of a domain returns the first,
 * bad input and an `expected` equal to today's answer are problems (whatever is open), a
 * key reads only its own reports, the 101st report of a day (or past a smaller plan
 * quota) is refused, and the operator's queue and review under /admin/reports change
 * the next answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { type LiveService, openLiveService } from "../../harness/live-service.js";
import { fixtureZones } from "../../harness/zones.js";
import type { CheckRecord } from "../../src/core/record.js";
import { expectExplained } from "../core/explained.js";

const ADMIN_TOKEN = "a".repeat(40);

/** The service's clock: moved on to tell one second's answers from another's. */
let now = Date.now();
let dns: DnsTestServer;
let service: LiveService;
let other: string;

beforeAll(async () => {
  dns = await startDnsServer(fixtureZones("engine"));
  service = await openLiveService({
    dnsAddress: dns.address,
    clock: () => new Date(now),
    adminToken: ADMIN_TOKEN,
  });
  other = (await service.store.keys.createKey({ plan: "tests", now: new Date() })).secret;
}, 30_000);

afterAll(async () => {
  await service?.close();
  await dns?.close();
});

function file(payload: unknown, secret = service.secret) {
  return service.app.inject({
    method: "POST",
    url: "/v2/reports",
    headers: { authorization: `Bearer ${secret}` },
    payload: payload as Record<string, unknown>,
  });
}

function read(id: string, secret = service.secret) {
  return service.app.inject({ url: `/v2/reports/${id}`, headers: { authorization: `Bearer ${secret}` } });
}

function admin(method: "GET" | "POST", url: string, payload?: unknown) {
  return service.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

async function used(secret: string): Promise<number> {
  const response = await service.app.inject({
    url: "/v2/usage",
    headers: { authorization: `Bearer ${secret}` },
  });
  return response.json().used;
}

describe("filing", () => {
  it("answers 202 with the open report, counts nothing, and returns a key's open report of the domain again", async () => {
    const before = await used(service.secret);
    const first = await file({ domain: "mailinator.com", expected: "allow", note: "our staff use it" });
    expect(first.statusCode, first.body).toBe(202);
    expect(first.json()).toEqual({
      id: expect.stringMatching(/^rpt_/),
      status: "open",
      domain: "mailinator.com",
      expected: "allow",
      note: "our staff use it",
      filed_at: expect.any(String),
      reviewed_at: null,
    });
    expect(first.headers["x-ratelimit-requests-remaining"]).toBeDefined();
    // An address's domain is the domain reported; the address is not kept.
    const again = await file({ email: "jane@MAILINATOR.com", expected: "allow" });
    expect(again.statusCode).toBe(202);
    expect(again.json()).toMatchObject({ id: first.json().id, note: "our staff use it" });
    expect(again.body).not.toContain("jane");
    expect(await used(service.secret)).toBe(before);
  });

  it("takes a form body too, and refuses a key whose quota is used up with 429 quota_exceeded", async () => {
    await service.store.plans.createPlan({ name: "one", quota: 1, periodDays: 30 });
    const { secret } = await service.store.keys.createKey({ plan: "one", now: new Date() });
    const form = (domain: string) =>
      service.app.inject({
        method: "POST",
        url: "/v2/reports",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/x-www-form-urlencoded" },
        payload: `domain=${domain}&expected=allow`,
      });
    const filed = await form("gmial.com");
    expect(filed.statusCode, filed.body).toBe(202);
    expect(await used(secret)).toBe(0);
    const check = await service.app.inject({
      method: "POST",
      url: "/v2/",
      headers: { authorization: `Bearer ${secret}` },
      payload: { domain: "gmail.com" },
    });
    expect(check.statusCode).toBe(200);
    const refused = await form("gmaill.com");
    expect([refused.statusCode, refused.json().code], refused.body).toEqual([429, "quota_exceeded"]);
    expect(refused.json().detail).toContain("quota of 1 requests per period is used up");
    expect(refused.headers["x-ratelimit-requests-remaining"]).toBe("0");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(await used(secret)).toBe(1);
  });

  it("takes a multipart form, keeping the fields the route declares (`expected`, `note`)", async () => {
    const { secret } = await service.store.keys.createKey({ plan: "tests", now: new Date() });
    const boundary = "----mailrisk-report-boundary";
    const fields = { domain: "nx-42.test", expected: "allow", note: "ours", other: "dropped" };
    const body = `${Object.entries(fields)
      .map(
        ([name, value]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      )
      .join("")}--${boundary}--\r\n`;
    const filed = await service.app.inject({
      method: "POST",
      url: "/v2/reports",
      headers: {
        authorization: `Bearer ${secret}`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
      },
      payload: body,
    });
    expect(filed.statusCode, filed.body).toBe(202);
    expect(filed.json()).toMatchObject({ domain: "nx-42.test", expected: "allow", note: "ours" });
  });

  it("refuses an expected answer that is today's, whatever the key has open, and returns the open one of the same answer", async () => {
    const { secret } = await service.store.keys.createKey({ plan: "tests", now: new Date() });
    const open = await file({ domain: "guerrillamail.com", expected: "allow" }, secret);
    expect(open.statusCode, open.body).toBe(202);
    const same = await file({ domain: "guerrillamail.com", expected: "allow", note: "again" }, secret);
    expect([same.statusCode, same.json().id]).toEqual([202, open.json().id]);
    const matching = await file({ domain: "guerrillamail.com", expected: "block" }, secret);
    expect([matching.statusCode, matching.json().code], matching.body).toEqual([
      422,
      "report_matches_answer",
    ]);
  });

  it.each([
    [{ domain: "gmail.com", expected: "allow" }, 422, "report_matches_answer"],
    [{ domain: "does-not-exist.test", expected: "block" }, 422, "report_matches_answer"],
    [{ domain: "not a domain", expected: "block" }, 400, "invalid_domain"],
    [{ email: "nobody", expected: "block" }, 400, "invalid_email"],
    [{ expected: "block" }, 400, "missing_input"],
    [{ domain: "gmail.com" }, 400, "invalid_body"],
    [{ domain: "gmail.com", expected: "maybe" }, 400, "invalid_body"],
    [{ domain: "gmail.com", expected: "block", note: "x".repeat(501) }, 400, "invalid_body"],
  ])("refuses %j with %i %s", async (payload, status, code) => {
    const response = await file(payload);
    expect(response.statusCode, response.body).toBe(status);
    expect(response.headers["content-type"]).toContain("application/problem+json");
    expect(response.json()).toMatchObject({ status, code });
  });

  it("needs a key", async () => {
    const response = await service.app.inject({
      method: "POST",
      url: "/v2/reports",
      payload: { domain: "gmail.com", expected: "block" },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe("missing_api_key");
  });
});

describe("access and body, as every checking route", () => {
  const raw = (contentType: string, payload: string, secret: string | null = service.secret) =>
    service.app.inject({
      method: "POST",
      url: "/v2/reports",
      headers: { "content-type": contentType, ...(secret ? { authorization: `Bearer ${secret}` } : {}) },
      payload,
    });

  it("refuses a wrong or revoked key with 401, before anything about the body", async () => {
    const wrong = await file(
      { domain: "gmail.com", expected: "block" },
      "mr_notARealKey000000000000000000000",
    );
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().code).toBe("invalid_api_key");
    const { key, secret } = await service.store.keys.createKey({ plan: "tests", now: new Date() });
    await service.store.keys.revokeKey(key.id, new Date());
    expect((await file({ domain: "gmail.com", expected: "block" }, secret)).statusCode).toBe(401);
    expect((await read("rpt_anything", secret)).statusCode).toBe(401);
    expect((await raw("text/plain", "x", null)).json().code).toBe("missing_api_key");
  });

  it("answers 413, 415 and broken JSON as problems with the rate-limit headers", async () => {
    const big = await raw(
      "application/json",
      JSON.stringify({ domain: "x".repeat(17 * 1024), expected: "block" }),
    );
    expect([big.statusCode, big.json().code]).toEqual([413, "body_too_large"]);
    const text = await raw("text/plain", "domain=gmail.com");
    expect([text.statusCode, text.json().code]).toEqual([415, "unsupported_media_type"]);
    const broken = await raw("application/json", '{"domain": "gmail.com"');
    expect([broken.statusCode, broken.json().code]).toEqual([400, "invalid_body"]);
    for (const response of [big, text, broken]) {
      expect(response.headers["x-ratelimit-requests-remaining"]).toMatch(/^\d+$/);
    }
  });

  it("answers another method with 405 and Allow", async () => {
    const response = await service.app.inject({ method: "PUT", url: "/v2/reports" });
    expect([response.statusCode, response.headers.allow]).toEqual([405, "POST"]);
    const one = await service.app.inject({ method: "DELETE", url: "/v2/reports/rpt_x" });
    expect([one.statusCode, one.headers.allow]).toEqual([405, "GET, HEAD"]);
  });
});

describe("reading", () => {
  it("tells the key that filed it, and nobody else", async () => {
    const { id } = (await file({ domain: "parked-domain.test", expected: "allow" })).json();
    const mine = await read(id);
    expect(mine.statusCode).toBe(200);
    expect(mine.json()).toMatchObject({
      id,
      status: "open",
      domain: "parked-domain.test",
      reviewed_at: null,
    });
    for (const response of [await read(id, other), await read("rpt_doesnotexist")]) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: "unknown_report", status: 404 });
    }
  });
});

describe("the operator's queue and review", () => {
  it("sorts by distinct reporters with today's evidence, and accepting changes the next answer", async () => {
    const filed = (await file({ domain: "burner-catchall.test", expected: "allow" })).json();
    const second = (await file({ domain: "burner-catchall.test", expected: "allow" }, other)).json();
    expect(second.id).not.toBe(filed.id);
    const before = await service.check("burner-catchall.test");
    expect(before.block).toBe(true);

    const queue = await admin("GET", "/admin/reports");
    expect(queue.statusCode, queue.body).toBe(200);
    const entries = queue.json();
    expect(entries[0]).toMatchObject({ domain: "burner-catchall.test", reporters: 2, status: "open" });
    expect(entries[1]).toMatchObject({ domain: "burner-catchall.test", reporters: 2 });
    const reporters = entries.map((entry: { reporters: number }) => entry.reporters);
    expect(reporters).toEqual([...reporters].sort((a, b) => b - a));
    const { today } = entries[0];
    expect(today).toMatchObject({ answer: "block", reason: "Heuristics x1", risk: 90 });
    expectExplained(before as unknown as CheckRecord, today.evidence, "queue");
    expect(today.evidence[0]).toMatchObject({ kind: "infrastructure", shared: "mail.mailinator.com" });

    now += 60_000;
    const accepted = await admin("POST", `/admin/reports/${filed.id}/accept`, {
      note: "a customer's catch-all",
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toMatchObject({
      id: filed.id,
      status: "accepted",
      review_note: "a customer's catch-all",
      closed: [filed.id, second.id].sort(),
      override: {
        id: "domain:burner-catchall.test",
        action: "allow",
        note: `report ${filed.id}: a customer's catch-all`,
      },
    });
    const after = await service.check("burner-catchall.test");
    expect(after).toMatchObject({ block: false, reason: "Operator override" });
    expect(after.block_status_changed_at).not.toBe(before.block_status_changed_at);
    expect((await read(filed.id)).json()).toMatchObject({
      status: "accepted",
      reviewed_at: expect.any(String),
    });
    expect((await read(second.id, other)).json()).toMatchObject({ status: "accepted" });

    const overrides = (await admin("GET", "/admin/overrides")).json();
    expect(overrides).toContainEqual(
      expect.objectContaining({ kind: "domain", value: "burner-catchall.test", action: "allow" }),
    );
    const twice = await admin("POST", `/admin/reports/${filed.id}/reject`, {});
    expect(twice.statusCode).toBe(409);
    expect(twice.json().code).toBe("report_not_open");
    const unknown = await admin("POST", "/admin/reports/rpt_none/accept", {});
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe("unknown_report");

    const acceptedList = (await admin("GET", "/admin/reports?status=accepted")).json();
    expect(acceptedList.map((entry: { id: string }) => entry.id)).toEqual(
      expect.arrayContaining([filed.id, second.id]),
    );
    expect(acceptedList[0].today).toMatchObject({ answer: "allow" });
  });

  it("rejecting keeps the answer", async () => {
    const { id } = (await file({ domain: "fallback.test", expected: "block" })).json();
    const rejected = await admin("POST", `/admin/reports/${id}/reject`);
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(rejected.json()).toMatchObject({ id, status: "rejected", override: null, closed: [id] });
    expect((await service.check("fallback.test")).block).toBe(false);
    expect((await read(id)).json().status).toBe("rejected");
  });

  it("refuses a bad status or limit", async () => {
    expect((await admin("GET", "/admin/reports?status=lost")).statusCode).toBe(400);
    expect((await admin("GET", "/admin/reports?limit=0")).statusCode).toBe(400);
    expect((await admin("GET", "/admin/reports?limit=2")).json().length).toBeLessThanOrEqual(2);
  });
});

it("describes the report routes in /openapi.json", async () => {
  const doc = (await service.app.inject({ url: "/openapi.json" })).json();
  const post = doc.paths["/v2/reports"].post;
  expect(Object.keys(post.responses)).toEqual([
    "202",
    "400",
    "401",
    "413",
    "415",
    "422",
    "429",
    "500",
    "503",
  ]);
  expect(Object.keys(post.requestBody.content["application/json"].schema.properties)).toEqual([
    "email",
    "domain",
    "expected",
    "note",
  ]);
  expect(post.security).toEqual([{ bearerKey: [] }]);
  expect(Object.keys(doc.paths["/v2/reports/{id}"].get.responses)).toEqual([
    "200",
    "401",
    "404",
    "500",
    "503",
  ]);
  const queue = doc.paths["/admin/reports"].get.responses["200"].content["application/json"].schema;
  expect(Object.keys(queue.items.properties)).toContain("today");
  expect(doc.paths["/admin/reports/{id}/accept"].post.security).toEqual([{ adminToken: [] }]);
});

describe("the daily limit", () => {
  it("counts the refusals of answers given already: the 101st attempt is refused", async () => {
    const { secret } = await service.store.keys.createKey({ plan: "tests", now: new Date() });
    for (let i = 0; i < 99; i++) {
      const response = await file({ domain: "gmail.com", expected: "allow" }, secret);
      expect(response.json().code).toBe("report_matches_answer");
    }
    expect((await file({ domain: "mailinator.com", expected: "allow" }, secret)).statusCode).toBe(202);
    const over = await file({ domain: "gmail.com", expected: "allow" }, secret);
    expect([over.statusCode, over.json().code]).toEqual([429, "too_many_reports"]);
  }, 60_000);

  it("refuses the 101st report of a key in 24 hours with 429 and Retry-After", async () => {
    const { secret } = await service.store.keys.createKey({ plan: "tests", now: new Date() });
    for (let i = 0; i < 100; i++) {
      const response = await file({ domain: `nx-${i}.test`, expected: "allow" }, secret);
      expect(response.statusCode, response.body).toBe(202);
    }
    const refused = await file({ domain: "nx-100.test", expected: "allow" }, secret);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().code).toBe("too_many_reports");
    const retryAfter = Number(refused.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(86_000);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    // Refusals count too: answers are not told for free past the limit.
    const refusedToo = await file({ domain: "gmail.com", expected: "allow" }, secret);
    expect([refusedToo.statusCode, refusedToo.json().code]).toEqual([429, "too_many_reports"]);
    // A report already open is still returned.
    expect((await file({ domain: "nx-7.test", expected: "allow" }, secret)).statusCode).toBe(202);
    // Another key is not limited by this one.
    expect((await file({ domain: "nx-100.test", expected: "allow" }, other)).statusCode).toBe(202);
  }, 60_000);

  it("is the plan's quota per period when that is smaller than 100", async () => {
    await service.store.plans.createPlan({ name: "three", quota: 3, periodDays: 30 });
    const { secret } = await service.store.keys.createKey({ plan: "three", now: new Date() });
    for (let i = 0; i < 3; i++) {
      const response = await file({ domain: `small-${i}.test`, expected: "allow" }, secret);
      expect(response.statusCode, response.body).toBe(202);
    }
    const over = await file({ domain: "small-3.test", expected: "allow" }, secret);
    expect([over.statusCode, over.json().code]).toEqual([429, "too_many_reports"]);
    expect(over.json().detail).toContain("may file 3 reports");
  });
});
