/**
 * The operator's desk (docs/console.md "The operator's desk") over inject, with the
 * test's stand-in for the accounts' sessions: a 404 for anyone but an operator and
 * where no accounts are wired, a 403 `csrf_failed` for a form without its token, and
 * every change made as the operator's account, so the audit log names their email.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../../../harness/databases.js";
import { TEST_ORIGIN } from "../../../harness/form-browser.js";
import { TEST_CSRF_TOKEN, testOperatorAccess } from "../../../harness/operator-access.js";
import { type HttpFixture, openHttpFixture } from "../../http/helpers.js";

const TOKEN = "admin-token-for-tests-0123456789abcdef";
const OPERATOR = { cookie: "operator=ops%40example.org", origin: TEST_ORIGIN };
const PAGES = [
  "/console",
  "/console/reports",
  "/console/overrides",
  "/console/plans",
  "/console/lists",
  "/console/webhooks",
  "/console/accounts",
  "/console/audit",
];

let fixture: HttpFixture;
afterEach(() => fixture.close());

function post(url: string, form: Record<string, string>, headers: Record<string, string> = OPERATOR) {
  return fixture.app.inject({
    method: "POST",
    url,
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams(form).toString(),
  });
}

async function fileReport(domain: string, expected: "allow" | "block"): Promise<string> {
  const { id: keyId } = await fixture.newKey();
  const filed = await fixture.store.reports.fileReport(
    { keyId, domain, expected, note: "<b>wrong</b>", filedAt: fixture.clock.now() },
    { max: 10, windowMs: 86_400_000 },
  );
  if (!("report" in filed)) throw new Error(filed.outcome);
  return filed.report.id;
}

describe("without accounts wired", () => {
  it("answers 404 at /console", async () => {
    fixture = await openHttpFixture();
    for (const url of PAGES)
      expect((await fixture.app.inject({ url, headers: OPERATOR })).statusCode).toBe(404);
  });
});

describe("the console", () => {
  it("is a 404 to a member and to nobody, for pages and forms alike", async () => {
    fixture = await openHttpFixture({ operatorAccess: testOperatorAccess });
    for (const headers of [{}, { cookie: "member=someone%40example.org" }] as Record<string, string>[]) {
      for (const url of PAGES) expect((await fixture.app.inject({ url, headers })).statusCode, url).toBe(404);
      const set = await post(
        "/console/overrides",
        { csrf: TEST_CSRF_TOKEN, kind: "domain", value: "x.example", action: "deny" },
        headers,
      );
      expect(set.statusCode).toBe(404);
    }
    expect(await fixture.store.overrides.listOverrides()).toEqual([]);
  });

  it("answers the pages' limit with a 429 and Retry-After, never a 500, on pages and forms alike", async () => {
    fixture = await openHttpFixture({ operatorAccess: testOperatorAccess, pageRateLimit: 2 });
    const answers = [];
    for (let i = 0; i < 4; i++)
      answers.push(await fixture.app.inject({ url: "/console", headers: OPERATOR }));
    answers.push(
      await post("/console/overrides", { csrf: TEST_CSRF_TOKEN, kind: "domain", value: "x.example" }),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 429, 429, 429]);
    expect(Number(answers[4]?.headers["retry-after"])).toBeGreaterThan(0);
    expect(await fixture.store.overrides.listOverrides()).toEqual([]);
  });

  it("serves every page to the operator as HTML under the pages' CSP, each form with its token", async () => {
    fixture = await openHttpFixture({ operatorAccess: testOperatorAccess });
    await fileReport("mailinator.com", "allow");
    for (const url of PAGES) {
      const answer = await fixture.app.inject({ url, headers: OPERATOR });
      expect(answer.statusCode, url).toBe(200);
      expect(answer.headers["content-type"]).toContain("text/html");
      expect(answer.headers["content-security-policy"]).toContain("default-src 'none'");
      expect(answer.body).toContain("Signed in as ops@example.org.");
      for (const form of answer.body.match(/<form [^>]*method="post"[\s\S]*?<\/form>/g) ?? [])
        expect(form).toContain(`name="csrf" value="${TEST_CSRF_TOKEN}"`);
    }
    const reports = await fixture.app.inject({ url: "/console/reports", headers: OPERATOR });
    expect(reports.body).toContain("&lt;b&gt;wrong&lt;/b&gt;");
    expect(reports.body).toMatch(/>Accept<\/button>[\s\S]*>Reject<\/button>/);
  });

  it("refuses a form without its CSRF token, or with Origin null or foreign, with 403 csrf_failed, changing nothing", async () => {
    fixture = await openHttpFixture({ operatorAccess: testOperatorAccess });
    const id = await fileReport("mailinator.com", "allow");
    for (const csrf of [undefined, "forged"]) {
      const answer = await post(`/console/reports/${id}/accept`, csrf ? { csrf } : {});
      expect(answer.statusCode).toBe(403);
      expect(answer.json()).toMatchObject({ code: "csrf_failed" });
    }
    for (const origin of ["null", "https://elsewhere.example", undefined]) {
      const { origin: _, ...cookieOnly } = OPERATOR;
      const headers = origin === undefined ? cookieOnly : { ...cookieOnly, origin };
      const answer = await post(`/console/reports/${id}/accept`, { csrf: TEST_CSRF_TOKEN }, headers);
      expect(answer.statusCode, origin).toBe(403);
    }
    expect((await fixture.store.reports.getReport(id))?.status).toBe("open");
    expect(await fixture.store.audit.search({ limit: 10 })).toEqual([]);
  });

  it("answers bad forms and refusals as problems, never a 500", async () => {
    fixture = await openHttpFixture({ operatorAccess: testOperatorAccess });
    const cases = [
      [post("/console/overrides", { csrf: TEST_CSRF_TOKEN, kind: "zone", value: "x", action: "deny" }), 400],
      [
        post("/console/overrides", {
          csrf: TEST_CSRF_TOKEN,
          kind: "domain",
          value: "not a domain",
          action: "deny",
        }),
        400,
      ],
      [post("/console/reports/nope/accept", { csrf: TEST_CSRF_TOKEN }), 404],
      [post("/console/plans/free", { csrf: TEST_CSRF_TOKEN, quota: "lots" }), 400],
      [post("/console/plans/nope", { csrf: TEST_CSRF_TOKEN, quota: "5" }), 404],
      [post("/console/lists/rollback", { csrf: TEST_CSRF_TOKEN, source: "nowhere" }), 404],
    ] as const;
    for (const [answer, status] of cases) {
      const { statusCode, headers } = await answer;
      expect(statusCode).toBe(status);
      expect(headers["content-type"]).toContain("application/problem+json");
    }
  });
});

describe.each(DATABASE_KINDS)("changes made in the console (%s)", (kind) => {
  it("accepts a report, sets and removes an override, sets a quota, and the audit log names the operator", async () => {
    fixture = await openHttpFixture({ kind, operatorAccess: testOperatorAccess, adminToken: TOKEN });
    const id = await fileReport("mailinator.com", "allow");
    const accepted = await post(`/console/reports/${id}/accept`, {
      csrf: TEST_CSRF_TOKEN,
      note: "a real provider",
    });
    expect(accepted.statusCode).toBe(303);
    expect(accepted.headers.location).toBe("/console/reports");
    expect((await fixture.store.reports.getReport(id))?.status).toBe("accepted");

    const set = { csrf: TEST_CSRF_TOKEN, kind: "domain", value: "Spam.Example", action: "deny", note: "" };
    expect((await post("/console/overrides", set)).statusCode).toBe(303);
    const removed = await post("/console/overrides/remove", {
      csrf: TEST_CSRF_TOKEN,
      kind: "domain",
      value: "spam.example",
    });
    expect(removed.statusCode).toBe(303);

    expect((await post("/console/plans/free", { csrf: TEST_CSRF_TOKEN, quota: "2000" })).statusCode).toBe(
      303,
    );
    expect((await fixture.store.plans.listPlans()).find((p) => p.name === "free")?.quota).toBe(2000);

    const audit = await fixture.app.inject({
      url: "/admin/audit",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(
      audit
        .json()
        .map((e: { actor: string; action: string; entity_id: string }) => [e.actor, e.action, e.entity_id]),
    ).toEqual([
      ["ops@example.org", "plan.update", "free"],
      ["ops@example.org", "override.remove", "domain:spam.example"],
      ["ops@example.org", "override.set", "domain:spam.example"],
      ["ops@example.org", "report.accept", id],
    ]);
    const page = await fixture.app.inject({
      url: "/console/audit?actor=ops%40example.org&action=report",
      headers: OPERATOR,
    });
    expect(page.body).toContain(`<td>report:${id}</td>`);
    expect(page.body).not.toContain("override.set");
  });
});
