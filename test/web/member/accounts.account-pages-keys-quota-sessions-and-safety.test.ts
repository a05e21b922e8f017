/**
 * Accounts through the pages (docs/accounts.md): an invited person sets a password and
 * lands on /account; its keys draw from one count; another account cannot see them; a
 * suspended account's key gets 401; every form refuses a cross-origin POST; after 10
 * wrong passwords the network waits even with the right one.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../../harness/cli-context.js";
import { FormBrowser, invitedBrowser, TEST_ORIGIN, TEST_PASSWORD } from "../../../harness/form-browser.js";
import { run as accounts } from "../../../src/cli/accounts-command.js";
import { inviteAccount } from "../../../src/operator/accounts.js";
import { CLI_ACTOR } from "../../../src/operator/audit.js";
import { type HttpFixture, openHttpFixture } from "../../http/helpers.js";

let fixture: HttpFixture;

beforeEach(async () => {
  fixture = await openHttpFixture({ signup: "invite", console: true });
});
afterEach(() => fixture.close());

async function createKey(browser: FormBrowser): Promise<{ id: string; secret: string }> {
  const page = await browser.get("/account/keys");
  const created = await browser.post(
    "/account/keys",
    { name: "shop", kind: "secret", origins: "" },
    page.body,
  );
  expect(created.statusCode, created.body).toBe(201);
  const secret = /data-secret="([^"]+)"/.exec(created.body)?.[1] ?? "";
  expect(secret).toMatch(/^mr_/);
  const keys = await fixture.store.keys.listKeys();
  const id = keys.find((key) => secret.startsWith(key.prefix))?.id ?? "";
  return { id, secret };
}

function check(secret: string) {
  return fixture.app.inject({
    method: "POST",
    url: "/v2/",
    headers: { authorization: `Bearer ${secret}` },
    payload: { domain: "example.com" },
  });
}

describe("accounts", () => {
  it("sets a password by invitation: an argon2id hash, a session cookie with its attributes, the console", async () => {
    const browser = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const stored = await fixture.store.accounts.findLogin("ann@example.com");
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const overview = await browser.get("/account");
    expect(overview.statusCode).toBe(200);
    const cookies = [overview.headers["set-cookie"] ?? []].flat();
    expect(cookies.find((line) => line.startsWith("mailrisk_session="))).toMatch(
      /^mailrisk_session=\w+; HttpOnly; SameSite=Lax; Path=\/; Max-Age=2592000$/,
    );
    // The first key is shown on this first visit only, and its cookie ended.
    expect(overview.body).toMatch(/data-secret="mr_[0-9A-Za-z]{32}"/);
    expect(cookies).toContain("mailrisk_first_key=; HttpOnly; SameSite=Strict; Path=/account; Max-Age=0");
    expect((await browser.get("/account")).body).not.toContain("data-secret");
    expect(overview.body).toContain("ann@example.com");
    const stranger = new FormBrowser(fixture.app);
    const withoutCookie = await stranger.post(
      "/login",
      { email: "ann@example.com", password: TEST_PASSWORD },
      overview.body,
    );
    expect(withoutCookie.statusCode).toBe(403);
    const fresh = new FormBrowser(fixture.app);
    const page = await fresh.get("/login");
    const loggedIn = await fresh.post(
      "/login",
      { email: "Ann@Example.com", password: TEST_PASSWORD },
      page.body,
    );
    expect(loggedIn.statusCode).toBe(303);
    const cookie = [loggedIn.headers["set-cookie"]]
      .flat()
      .find((line) => line?.startsWith("mailrisk_session="));
    expect(cookie).toMatch(/; HttpOnly; SameSite=Lax; Path=\/; Max-Age=2592000$/);

    // A session used within SESSION_TTL lives on until SESSION_MAX_AGE from its start; then it is over.
    const start = fixture.clock.now().getTime();
    fixture.clock.set(new Date(start + 29 * 86_400_000));
    const used = await fresh.get("/account");
    expect(used.statusCode).toBe(200);
    expect(used.headers["set-cookie"]).toMatch(/; Max-Age=86400$/);
    fixture.clock.set(new Date(start + 31 * 86_400_000));
    expect((await fresh.get("/account")).statusCode).toBe(303);
  });

  it("draws all the keys of an account from one count, told by GET /v2/usage of either", async () => {
    const browser = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const first = await createKey(browser);
    const second = await createKey(browser);
    expect((await check(first.secret)).statusCode).toBe(200);
    const answer = await check(second.secret);
    expect(answer.headers["x-ratelimit-requests-remaining"]).toBe("998");
    for (const { secret } of [first, second]) {
      const usage = await fixture.app.inject({
        url: "/v2/usage",
        headers: { authorization: `Bearer ${secret}` },
      });
      expect(usage.json()).toMatchObject({ used: 2 });
    }
    await fixture.store.usage.flushDailyUsage();
    const overview = await browser.get("/account");
    expect(overview.body).toContain("<span data-quota-used>2</span> of 1,000");
    expect(overview.body).toMatch(/<svg class="chart"[^>]*data-chart-current="2"/);
    const one = await browser.get(`/account/keys/${first.id}`);
    expect(one.body).toMatch(/<svg class="chart"[^>]*data-chart-current="1"/);
  });

  it("answers 404 for another account's key, and 401 account_suspended for a suspended account's key", async () => {
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const bob = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "bob@example.com");
    const key = await createKey(ann);
    expect((await bob.get(`/account/keys/${key.id}`)).statusCode).toBe(404);
    expect((await ann.get(`/account/keys/${key.id}`)).statusCode).toBe(200);
    const bobsPage = await bob.get("/account/keys");
    expect((await bob.post(`/account/keys/${key.id}/revoke`, {}, bobsPage.body)).statusCode).toBe(404);
    expect((await check(key.secret)).statusCode).toBe(200);

    const cli = createTestCli(fixture.databaseUrl, "");
    expect(await accounts(["suspend", "ann@example.com"], cli.ctx)).toBe(0);
    // The CLI's change reaches the server through the change signal, as it does another instance.
    await expect
      .poll(async () => (await check(key.secret)).statusCode, { timeout: 2000, interval: 100 })
      .toBe(401);
    const refused = await check(key.secret);
    expect(refused.json()).toMatchObject({ code: "account_suspended" });
    expect((await ann.get("/account")).statusCode).toBe(303);
    const loginPage = (await ann.get("/login")).body;
    expect(
      (await ann.post("/login", { email: "ann@example.com", password: TEST_PASSWORD }, loginPage)).statusCode,
    ).toBe(403);

    expect(await accounts(["resume", "ann@example.com"], cli.ctx)).toBe(0);
    await expect
      .poll(async () => (await check(key.secret)).statusCode, { timeout: 2000, interval: 100 })
      .toBe(200);
    expect(
      (await ann.post("/login", { email: "ann@example.com", password: TEST_PASSWORD }, loginPage)).statusCode,
    ).toBe(303);
  });

  it("rolls a key: a new secret shown once, the old one working 24 hours more, then 401", async () => {
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const key = await createKey(ann);
    const page = await ann.get("/account/keys");
    const rolled = await ann.post(`/account/keys/${key.id}/roll`, {}, page.body);
    expect(rolled.statusCode).toBe(201);
    const secret = /data-secret="([^"]+)"/.exec(rolled.body)?.[1] ?? "";
    expect(secret).toMatch(/^mr_/);
    expect(secret).not.toBe(key.secret);
    const start = fixture.clock.now();
    fixture.clock.set(new Date(start.getTime() + 23 * 3_600_000));
    expect((await check(key.secret)).statusCode).toBe(200);
    expect((await check(secret)).statusCode).toBe(200);
    fixture.clock.set(new Date(start.getTime() + 24 * 3_600_000 + 1000));
    expect((await check(key.secret)).statusCode).toBe(401);
    expect((await check(secret)).statusCode).toBe(200);
  });

  it("shows an account the reports its keys filed, and no other account's", async () => {
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const bob = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "bob@example.com");
    const key = await createKey(ann);
    const filed = await Promise.all(
      ["allow", "block"].map((expected) =>
        fixture.app.inject({
          method: "POST",
          url: "/v2/reports",
          headers: { authorization: `Bearer ${key.secret}` },
          payload: { domain: "example.com", expected },
        }),
      ),
    );
    const report = filed.find((answer) => answer.statusCode === 202)?.json() as { id: string };
    expect((await ann.get("/account/reports")).body).toContain(`<td>${report.id}</td>`);
    expect((await bob.get("/account/reports")).body).not.toContain(report.id);
  });

  it("marks the session cookie Secure when PUBLIC_URL is https, and takes forms from that origin only", async () => {
    await fixture.close();
    fixture = await openHttpFixture({ signup: "invite", publicUrl: "https://mailrisk.example.org" });
    const links = {
      signup: "invite" as const,
      publicUrl: "https://mailrisk.example.org",
      signupPlan: "free",
      mailer: undefined,
    };
    const link = await inviteAccount(
      fixture.store,
      { email: "ann@example.com" },
      links,
      fixture.clock.now(),
      CLI_ACTOR,
    );
    expect(link.url).toMatch(/^https:\/\/mailrisk\.example\.org\/invite\/[0-9A-Za-z]{32}$/);
    const browser = new FormBrowser(fixture.app);
    const path = new URL(link.url).pathname;
    const page = await browser.get(path);
    expect((await browser.post(path, { password: TEST_PASSWORD }, page.body)).statusCode).toBe(403);
    const set = await browser.post(
      path,
      { password: TEST_PASSWORD },
      page.body,
      "https://mailrisk.example.org",
    );
    expect(set.statusCode).toBe(303);
    const cookie = [set.headers["set-cookie"]].flat().find((line) => line?.startsWith("mailrisk_session="));
    expect(cookie).toMatch(/; HttpOnly; SameSite=Lax; Path=\/; Max-Age=2592000; Secure$/);
  });

  it("refuses a cross-origin POST, or one without the token, to every form: 403 csrf_failed, nothing changed", async () => {
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const key = await createKey(ann);
    const keysPage = (await ann.get("/account/keys")).body;
    const forms: [string, Record<string, string>][] = [
      ["/account/keys", { name: "evil", kind: "secret" }],
      [`/account/keys/${key.id}/revoke`, {}],
      [`/account/keys/${key.id}/roll`, {}],
      ["/account/security", { current: TEST_PASSWORD, password: "another long password" }],
      ["/account/security/logout-everywhere", {}],
      ["/logout", {}],
      ["/login", { email: "ann@example.com", password: TEST_PASSWORD }],
      ["/reset", { email: "ann@example.com" }],
    ];
    for (const [url, fields] of forms) {
      for (const [origin, page] of [
        ["https://evil.example", keysPage],
        [TEST_ORIGIN, ""],
      ] as const) {
        const answer = await ann.post(url, fields, page, origin);
        expect(answer.statusCode, `${url} from ${origin}`).toBe(403);
        expect(answer.body).toContain("csrf_failed");
      }
    }
    expect(
      (
        await fixture.store.keys.accountKeys(
          (await fixture.store.accounts.findLogin("ann@example.com"))?.id ?? "",
        )
      ).map((k) => k.revokedAt),
    ).toEqual([null, null]);
    expect((await fixture.store.keys.listKeys()).length).toBe(2);
    expect((await ann.get("/account")).statusCode).toBe(200);
  });

  it("makes no invitation while SIGNUP is off: no page would take the link", async () => {
    const cli = createTestCli(fixture.databaseUrl, "");
    expect(await accounts(["invite", "ann@example.com"], cli.ctx)).toBe(1);
    expect(cli.stderr()).toContain("SIGNUP is off");
    expect(await fixture.store.accounts.listAccounts({ search: null, limit: 10 })).toEqual([]);
  });

  it("answers odd requests to the account pages with a 4xx or a redirect, never a 5xx", async () => {
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const page = await ann.get("/account/keys");
    const odd = [
      { method: "POST" as const, url: "/login", payload: { email: ["a", "b"], password: 5 } },
      {
        method: "POST" as const,
        url: "/login",
        payload: "not json",
        headers: { "content-type": "application/json" },
      },
      { method: "GET" as const, url: "/invite/%zz" },
      { method: "GET" as const, url: `/invite/${"x".repeat(5000)}` },
      { method: "POST" as const, url: "/invite/unknown", payload: "password=aaaaaaaaaaaa" },
      { method: "GET" as const, url: "/account/keys/%00" },
      { method: "GET" as const, url: "/signup" },
      { method: "PUT" as const, url: "/account" },
    ];
    for (const request of odd) {
      const answer = await fixture.app.inject({
        ...request,
        headers: { cookie: ann.cookieHeader(), ...request.headers },
      });
      expect(answer.statusCode, `${request.method} ${request.url.slice(0, 40)}`).toBeLessThan(500);
    }
    const roll = await ann.post("/account/keys/key_unknown/roll", {}, page.body);
    expect(roll.statusCode).toBe(404);
    const tooLong = await ann.post(
      "/account/keys",
      { name: "x".repeat(5000), kind: "publishable", origins: "ftp://x" },
      page.body,
    );
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.body).toContain('class="field-error"');
    const longName = await ann.post("/account/keys", { name: "x".repeat(201), kind: "secret" }, page.body);
    expect(longName.statusCode).toBe(400);
    expect(longName.body).toContain("at most 200 characters");
  });

  it("locks a network out of an account after 10 wrong passwords: its 11th try waits even with the right one", async () => {
    await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const browser = new FormBrowser(fixture.app);
    const page = (await browser.get("/login")).body;
    for (let i = 0; i < 10; i++) {
      expect(
        (await browser.post("/login", { email: "ann@example.com", password: `wrong ${i}` }, page)).statusCode,
      ).toBe(401);
    }
    const right = await browser.post("/login", { email: "ann@example.com", password: TEST_PASSWORD }, page);
    expect(right.statusCode).toBe(429);
    for (let i = 0; i < 10; i++)
      await browser.post("/login", { email: "nobody@example.com", password: `wrong ${i}` }, page);
    const unknown = await browser.post(
      "/login",
      { email: "nobody@example.com", password: TEST_PASSWORD },
      page,
    );
    expect(unknown.body.replace(/nobody@example\.com/g, "")).toBe(
      right.body.replace(/ann@example\.com/g, ""),
    );
  });
});

describe("the operator's desk with the accounts' sessions", () => {
  it("opens for an operator's session only; an accepted report shows in the audit log with the operator's email", async () => {
    const member = await invitedBrowser(
      fixture.app,
      fixture.store,
      fixture.clock.now(),
      "member@example.com",
    );
    expect((await member.get("/console")).statusCode).toBe(404);
    const operator = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "op@example.com", {
      operator: true,
    });
    expect((await operator.get("/console")).statusCode).toBe(200);

    const { id: keyId } = await fixture.newKey();
    const filed = await fixture.store.reports.fileReport(
      { keyId, domain: "mailinator.com", expected: "allow", note: null, filedAt: fixture.clock.now() },
      { max: 10, windowMs: 86_400_000 },
    );
    if (!("report" in filed)) throw new Error(filed.outcome);
    const queue = await operator.get("/console/reports");
    const accept = `/console/reports/${encodeURIComponent(filed.report.id)}/accept`;
    const forged = await operator.post(accept, {}, queue.body, "https://evil.example");
    expect(forged.statusCode).toBe(403);
    expect((await fixture.store.audit.search({ limit: 10 })).map((e) => e.action)).not.toContain(
      "report.accept",
    );
    const accepted = await operator.post(accept, {}, queue.body);
    expect(accepted.statusCode, accepted.body).toBe(303);
    const [entry] = await fixture.store.audit.search({ limit: 10 });
    expect(entry).toMatchObject({ actor: "op@example.com", action: "report.accept" });
  });
});

it("audits what the CLI does to accounts, and never the link it makes", async () => {
  const cli = createTestCli(fixture.databaseUrl, "", { SIGNUP: "invite" });
  expect(await accounts(["invite", "eve@example.com"], cli.ctx)).toBe(0);
  await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "sam@example.com");
  expect(await accounts(["suspend", "sam@example.com"], cli.ctx)).toBe(0);
  const entries = await fixture.store.audit.search({ limit: 10 });
  expect(entries.map((e) => [e.actor, e.action])).toEqual([
    ["cli", "account.suspend"],
    ["sam@example.com", "account.invite_accepted"],
    ["cli", "account.invite"],
    ["cli", "account.invite"],
  ]);
  expect(JSON.stringify(entries)).not.toMatch(/invite\/[0-9A-Za-z]{32}/);
});
