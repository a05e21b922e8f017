/**
 * The desk's accounts page (docs/console.md "The operator's desk") with the accounts' own
 * sessions, as `serve` wires them: the search finds by a part of the email (`%` and `_`
 * as themselves), a new plan holds for the account's keys at once, a suspension gives
 * its key 401 `account_suspended` until resumed, an invitation's link sets a password,
 * and the audit log names the operator; a member gets a 404, a cross-origin form a 403.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, type DatabaseKind } from "../../../harness/databases.js";
import { FormBrowser, invitedBrowser, TEST_ORIGIN } from "../../../harness/form-browser.js";
import { type HttpFixture, openHttpFixture } from "../../http/helpers.js";

const TOKEN = "admin-token-for-tests-0123456789abcdef";
let fixture: HttpFixture;
afterEach(() => fixture.close());

async function open(kind: DatabaseKind = "sqlite") {
  fixture = await openHttpFixture({ kind, signup: "invite", console: true, adminToken: TOKEN });
  await fixture.store.plans.createPlan({ name: "partner", quota: 500, periodDays: 30 });
}

/** A new account, signed in, made a minute after the one before (the list is newest first). */
async function invited(email: string, operator = false): Promise<FormBrowser> {
  fixture.clock.set(new Date(fixture.clock.now().getTime() + 60_000));
  return invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), email, { operator });
}

/**
 * What the console's operators changed: the invitations the test made itself are the CLI's,
 * and the operator's own accepted invitation is its own account's change, not the desk's.
 */
const deskChanges = async () =>
  (await fixture.store.audit.search({ actor: "op@example.com", limit: 10 })).filter(
    (entry) => entry.action !== "account.invite_accepted",
  );

async function accountId(email: string): Promise<string> {
  return (await fixture.store.accounts.findLogin(email))?.id ?? "";
}

/** A new secret key of the account, as its console would make it. */
async function keyOf(email: string): Promise<string> {
  const made = await fixture.store.keys.createKey({
    plan: "free",
    now: fixture.clock.now(),
    accountId: await accountId(email),
  });
  return made.secret;
}

function check(secret: string) {
  return fixture.app.inject({
    method: "POST",
    url: "/v2/",
    headers: { authorization: `Bearer ${secret}` },
    payload: { domain: "example.com" },
  });
}

function emailsIn(html: string): string[] {
  return [...html.matchAll(/<tr><td>([^<]+@[^<]+)<\/td>/g)].map((match) => match[1] ?? "");
}

describe.each(DATABASE_KINDS)("the accounts page (%s)", (kind) => {
  it("searches, moves an account to a plan, suspends and resumes it, invites, and the audit log names the operator", async () => {
    await open(kind);
    const operator = await invited("op@example.com", true);
    const op = await accountId("op@example.com");
    await invited("ann@shop.example");
    await invited("bob_x@example.org");
    await invited("bobax@example.org");

    const all = await operator.get("/console/accounts");
    expect(all.statusCode).toBe(200);
    expect(emailsIn(all.body)).toEqual([
      "bobax@example.org",
      "bob_x@example.org",
      "ann@shop.example",
      "op@example.com",
    ]);
    expect(all.body).toContain('<label for="account-2-plan">Plan of ann@shop.example</label>');
    expect(all.body).toMatch(/<a href="\/console\/accounts" aria-current="page">Accounts<\/a>/);
    const searched = await operator.get("/console/accounts?search=SHOP");
    expect(emailsIn(searched.body)).toEqual(["ann@shop.example"]);
    expect(emailsIn((await operator.get("/console/accounts?search=b_x")).body)).toEqual([
      "bob_x@example.org",
    ]);
    const none = await operator.get("/console/accounts?search=%25");
    expect(emailsIn(none.body)).toEqual([]);
    expect(none.body).toContain("No email contains this text.");

    const ann = await accountId("ann@shop.example");
    const secret = await keyOf("ann@shop.example");
    expect((await check(secret)).headers["x-ratelimit-requests-limit"]).toBe("1000");
    const moved = await operator.post(
      `/console/accounts/${ann}/plan`,
      { plan: "partner", search: "shop" },
      searched.body,
    );
    expect(moved.statusCode, moved.body).toBe(303);
    expect(moved.headers.location).toBe("/console/accounts?search=shop");
    expect((await check(secret)).headers["x-ratelimit-requests-limit"]).toBe("500");
    const usage = await fixture.app.inject({
      url: "/v2/usage",
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(usage.json()).toMatchObject({ plan: "partner", limit: 500, used: 2 });
    const shown = await operator.get("/console/accounts?search=shop");
    expect(shown.body).toContain('<option value="partner" selected>partner</option>');

    const suspended = await operator.post(`/console/accounts/${ann}/suspend`, {}, shown.body);
    expect(suspended.statusCode).toBe(303);
    expect(suspended.headers.location).toBe("/console/accounts");
    const refused = await check(secret);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: "account_suspended" });
    const after = await operator.get("/console/accounts?search=shop");
    expect(after.body).toContain(">Resume</button>");
    expect((await operator.post(`/console/accounts/${ann}/resume`, {}, after.body)).statusCode).toBe(303);
    expect((await check(secret)).statusCode).toBe(200);

    const invitation = await operator.post(
      "/console/accounts/invite",
      { email: "Cat@Example.net", plan: "partner", operator: "on" },
      all.body,
    );
    expect(invitation.statusCode, invitation.body).toBe(201);
    const link = /data-invite-link="([^"]+)"/.exec(invitation.body)?.[1] ?? "";
    expect(link).toMatch(new RegExp(`^${TEST_ORIGIN}/invite/[\\w-]+$`));
    expect(invitation.body).toContain("It was not mailed (SMTP_URL is not set)");
    const cat = new FormBrowser(fixture.app);
    expect((await cat.setPassword(new URL(link).pathname)).statusCode).toBe(303);
    expect(await fixture.store.accounts.findLogin("cat@example.net")).toMatchObject({
      role: "operator",
      plan: "partner",
    });
    expect((await cat.get("/console/accounts")).statusCode).toBe(200);

    const audit = await fixture.app.inject({
      url: "/admin/audit?actor=op%40example.com",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(
      audit
        .json()
        .map((e: { action: string; entity_id: string | null; detail: unknown }) => [
          e.action,
          e.entity_id,
          e.detail,
        ]),
    ).toEqual([
      ["account.invite", null, { email: "cat@example.net", plan: "partner", role: "operator" }],
      ["account.resume", ann, { email: "ann@shop.example" }],
      ["account.suspend", ann, { email: "ann@shop.example" }],
      ["account.set_plan", ann, { email: "ann@shop.example", plan: "partner" }],
      // The operator's own account began by accepting its invitation.
      ["account.invite_accepted", op, { email: "op@example.com", plan: "free", role: "operator" }],
    ]);
  });
});

describe("the accounts page", () => {
  it("is a 404 to a member, pages and forms alike, and changes nothing", async () => {
    await open();
    const member = await invited("ann@example.com");
    const ann = await accountId("ann@example.com");
    const page = await member.get("/account/keys");
    expect((await member.get("/console/accounts")).statusCode).toBe(404);
    for (const [url, fields] of [
      [`/console/accounts/${ann}/plan`, { plan: "partner" }],
      [`/console/accounts/${ann}/suspend`, {}],
      ["/console/accounts/invite", { email: "bob@example.com", plan: "free" }],
    ] as const)
      expect((await member.post(url, fields, page.body)).statusCode, url).toBe(404);
    expect(await fixture.store.accounts.findLogin("ann@example.com")).toMatchObject({
      plan: "free",
      state: "active",
    });
    expect(await deskChanges()).toEqual([]);
  });

  it("refuses a cross-origin form or one without its token with 403 csrf_failed, changing nothing", async () => {
    await open();
    const operator = await invited("op@example.com", true);
    await invited("ann@example.com");
    const ann = await accountId("ann@example.com");
    const page = await operator.get("/console/accounts");
    const forged = [
      operator.post(`/console/accounts/${ann}/suspend`, {}, page.body, "https://evil.example"),
      operator.post(`/console/accounts/${ann}/plan`, { plan: "partner" }, page.body, "https://evil.example"),
      operator.post("/console/accounts/invite", { email: "x@example.com", plan: "free" }, "", TEST_ORIGIN),
    ];
    for (const answer of await Promise.all(forged)) {
      expect(answer.statusCode).toBe(403);
      expect(answer.body).toContain("CSRF token is missing or wrong");
    }
    expect(await fixture.store.accounts.findLogin("ann@example.com")).toMatchObject({
      plan: "free",
      state: "active",
    });
    expect(await deskChanges()).toEqual([]);
  });

  it("answers refusals as the desk's problems, never a 500", async () => {
    await open();
    const operator = await invited("op@example.com", true);
    const op = await accountId("op@example.com");
    const page = await operator.get("/console/accounts");
    expect(page.body).not.toContain(`/console/accounts/${op}/suspend`);
    const cases = [
      [operator.post(`/console/accounts/${op}/plan`, { plan: "nope" }, page.body), 404, "unknown plan"],
      [operator.post("/console/accounts/nope/suspend", {}, page.body), 404, "unknown account"],
      [operator.post(`/console/accounts/${op}/plan`, {}, page.body), 400, "The form does not fit"],
      [
        operator.post("/console/accounts/invite", { email: "not mail", plan: "free" }, page.body),
        400,
        "is not an email address",
      ],
      [
        operator.post("/console/accounts/invite", { email: "op@example.com", plan: "free" }, page.body),
        409,
        "exists already",
      ],
      [
        operator.post("/console/accounts/invite", { email: "new@example.com", plan: "nope" }, page.body),
        404,
        "unknown plan",
      ],
    ] as const;
    for (const [answer, status, says] of cases) {
      const { statusCode, headers, body } = await answer;
      expect(statusCode, says).toBe(status);
      expect(headers["content-type"]).toContain("text/html");
      expect(body).toContain(says);
    }
    expect(await deskChanges()).toEqual([]);
  });
});
