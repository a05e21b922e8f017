/**
 * Accounts tried as a hostile stranger would (docs/security.md), through the real app with
 * CSRF on and a loopback SMTP server, on SQLite and PostgreSQL: a second sign-up for an
 * address cannot take the account over; one mailbox is one account; a mailbox gets a
 * bounded number of mails; a common password is refused with the reason; a password change
 * ends the other browsers' sessions; no cookie and no oversized input is a 5xx; every
 * change is in `mailrisk audit list --json` with its actor, and no secret is.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../../harness/cli-context.js";
import { DATABASE_KINDS } from "../../../harness/databases.js";
import { FormBrowser, TEST_ORIGIN } from "../../../harness/form-browser.js";
import { run as audit } from "../../../src/cli/audit-command.js";
import { type HttpFixture, openHttpFixture } from "../../http/helpers.js";
import { type SmtpCapture, startSmtpCapture } from "./smtp-capture.js";

const PERSON = "a person's own long password";
const STRANGER = "a stranger's long password";

describe.each(DATABASE_KINDS)("accounts against strangers on %s", (kind) => {
  let fixture: HttpFixture;
  let smtp: SmtpCapture;

  beforeEach(async () => {
    smtp = await startSmtpCapture();
    fixture = await openHttpFixture({
      kind,
      signup: "open",
      smtpUrl: smtp.url,
      console: true,
      pageRateLimit: 1_000_000,
    });
  });
  afterEach(async () => {
    await fixture.close();
    await smtp.close();
  });

  async function signUp(browser: FormBrowser, email: string, password: string) {
    const page = await browser.get("/signup");
    return browser.post("/signup", { email, password }, page.body);
  }

  async function confirm(browser: FormBrowser, email: string, code: string) {
    const page = await browser.get("/signup/confirm");
    return browser.post("/signup/confirm", { email, code }, page.body);
  }

  async function logIn(email: string, password: string) {
    const browser = new FormBrowser(fixture.app);
    const page = await browser.get("/login");
    const answer = await browser.post("/login", { email, password }, page.body);
    return { browser, status: answer.statusCode };
  }

  /** A confirmed account of `email`, the browser that signed it up logged in. */
  async function signedUp(email: string, password = PERSON) {
    const browser = new FormBrowser(fixture.app);
    const mailsBefore = smtp.mails.length;
    expect((await signUp(browser, email, password)).statusCode).toBe(200);
    await expect.poll(() => smtp.mails.length).toBe(mailsBefore + 1);
    const confirmed = await confirm(browser, email, smtp.codeFor(email));
    expect(confirmed.statusCode, confirmed.body).toBe(303);
    expect(confirmed.headers.location).toBe("/account");
    return browser;
  }

  it("keeps a sign-up with the browser that started it: a stranger's second sign-up takes nothing over", async () => {
    const person = new FormBrowser(fixture.app);
    const stranger = new FormBrowser(fixture.app);
    expect((await signUp(person, "dora@example.com", PERSON)).statusCode).toBe(200);
    await expect.poll(() => smtp.mails.length).toBe(1);
    expect((await signUp(stranger, "dora@example.com", STRANGER)).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // One code went out (the first stands); the stranger, who does not have it, guesses.
    expect(smtp.mails).toHaveLength(1);
    const code = smtp.codeFor("dora@example.com");
    const guess = String((Number(code) + 1) % 100_000_000).padStart(8, "0");
    expect((await confirm(stranger, "dora@example.com", guess)).statusCode).toBe(400);
    const persons = await confirm(person, "dora@example.com", code);
    expect(persons.statusCode, persons.body).toBe(303);
    expect((await logIn("dora@example.com", PERSON)).status).toBe(303);
    expect((await logIn("dora@example.com", STRANGER)).status).toBe(401);
    expect(smtp.mails.every((mail) => !mail.text.includes(STRANGER))).toBe(true);
  });

  it("mails one address at most 5 times for 20 sign-ups naming it", async () => {
    for (let i = 0; i < 20; i++)
      expect(
        (await signUp(new FormBrowser(fixture.app), "victim@example.com", `${PERSON} ${i}`)).statusCode,
      ).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.mails.length).toBeGreaterThanOrEqual(1);
    expect(smtp.mails.length).toBeLessThanOrEqual(5);
  });

  it("keeps one account per mailbox: c.a.r.o.l+b@gmail.com after carol+a@gmail.com is answered as a known address", async () => {
    await signedUp("carol+a@gmail.com");
    const second = new FormBrowser(fixture.app);
    const answered = await signUp(second, "c.a.r.o.l+b@gmail.com", PERSON);
    expect(answered.statusCode).toBe(200);
    expect(answered.body).toContain("If the address can get a code");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.mails).toHaveLength(1);
    const accounts = await fixture.store.accounts.listAccounts({ search: null, limit: 10 });
    expect(accounts.map((a) => a.email)).toEqual(["carol+a@gmail.com"]);
  });

  it.each([
    ["password12", "most common passwords"],
    ["aaaaaaaaaa", "one character"],
    [" ".repeat(10), "whitespace"],
    ["short", "at least 10"],
  ])("refuses the password %j at sign-up and says why", async (password, why) => {
    const refused = await signUp(new FormBrowser(fixture.app), "eve@example.com", password);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain(why);
  });

  it("ends the other browser's session on a password change, and keeps this one in a new session", async () => {
    const first = await signedUp("finn@example.com");
    const { browser: second, status } = await logIn("finn@example.com", PERSON);
    expect(status).toBe(303);
    expect((await second.get("/account")).statusCode).toBe(200);
    const security = await first.get("/account/security");
    const changed = await first.post(
      "/account/security",
      { current: PERSON, password: "a brand new long password" },
      security.body,
    );
    expect(changed.statusCode, changed.body).toBe(303);
    expect((await second.get("/account")).statusCode).toBe(303);
    expect((await first.get("/account")).statusCode).toBe(200);
    expect((await logIn("finn@example.com", "a brand new long password")).status).toBe(303);
  });

  it("answers every page route with a stray % in a cookie, or an 8 KB cookie header, without a 5xx", async () => {
    const browser = await signedUp("gus@example.com");
    const routes = [
      "/",
      "/domain/example.com",
      "/signup",
      "/signup/confirm",
      "/login",
      "/reset",
      "/invite/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
      "/account",
      "/account/keys",
      "/account/reports",
      "/account/security",
      "/account/jobs",
      "/account/list",
      "/console",
    ];
    for (const cookie of [`_ga=100%; ${browser.cookieHeader()}`, `big=${"x".repeat(8 * 1024)}`, "_ga=100%"]) {
      for (const url of routes) {
        const answer = await fixture.app.inject({ url, headers: { cookie, accept: "text/html" } });
        expect(answer.statusCode, `${url} with ${cookie.slice(0, 20)}`).toBeLessThan(500);
      }
      const posted = await fixture.app.inject({
        method: "POST",
        url: "/login",
        headers: { cookie, origin: TEST_ORIGIN, "content-type": "application/x-www-form-urlencoded" },
        payload: "email=a%40b.c&password=x",
      });
      expect(posted.statusCode).toBeLessThan(500);
    }
    // The session itself still reads with a stray cookie beside it.
    const withStray = await fixture.app.inject({
      url: "/account",
      headers: { cookie: `_ga=100%; ${browser.cookieHeader()}`, accept: "text/html" },
    });
    expect(withStray.statusCode).toBe(200);
  });

  it("refuses a 10,000-digit code, a 1 MB password and a link of the wrong length with a 4xx, changing nothing", async () => {
    const browser = await signedUp("hal@example.com");
    const reset = await browser.get("/reset");
    const huge = await browser.post(
      "/reset",
      { email: "hal@example.com", code: "7".repeat(10_000), password: "a brand new long password" },
      reset.body,
    );
    expect(huge.statusCode).toBe(400);
    const long = await browser.post(
      "/reset",
      { email: "hal@example.com", code: "12345678", password: "p".repeat(1024 * 1024) },
      reset.body,
    );
    expect(long.statusCode).toBeGreaterThanOrEqual(400);
    expect(long.statusCode).toBeLessThan(500);
    for (const token of ["short", "a".repeat(33), "a".repeat(5000)]) {
      const page = await new FormBrowser(fixture.app).get(`/invite/${token}`);
      expect(page.statusCode).toBeGreaterThanOrEqual(400);
      expect(page.statusCode).toBeLessThan(500);
    }
    expect((await logIn("hal@example.com", PERSON)).status).toBe(303);
  });

  it("sets Secure on the cookies of a request that came over https through a trusted proxy", async () => {
    await fixture.close();
    fixture = await openHttpFixture({ kind, signup: "open", smtpUrl: smtp.url, trustProxy: ["127.0.0.1"] });
    const overHttps = await fixture.app.inject({
      url: "/login",
      headers: { "x-forwarded-proto": "https", accept: "text/html" },
    });
    expect(overHttps.headers["set-cookie"]).toMatch(/; Secure$/);
    const overHttp = await fixture.app.inject({ url: "/login", headers: { accept: "text/html" } });
    expect(overHttp.headers["set-cookie"]).not.toMatch(/Secure/);
  });

  it("audits sign-up, key create, roll and revoke, password change and log-out everywhere with the account as actor, and no secret", async () => {
    const browser = await signedUp("ida@example.com");
    const keys = await browser.get("/account/keys");
    const created = await browser.post(
      "/account/keys",
      { name: "shop", kind: "secret", origins: "" },
      keys.body,
    );
    expect(created.statusCode).toBe(201);
    const secret = /data-secret="([^"]+)"/.exec(created.body)?.[1] ?? "";
    const id = (await fixture.store.keys.listKeys()).find((key) => secret.startsWith(key.prefix))?.id ?? "";
    const rolled = await browser.post(`/account/keys/${id}/roll`, {}, created.body);
    expect(rolled.statusCode).toBe(201);
    const revoked = await browser.post(`/account/keys/${id}/revoke`, {}, rolled.body);
    expect(revoked.statusCode).toBe(303);
    const security = await browser.get("/account/security");
    await browser.post(
      "/account/security",
      { current: PERSON, password: "a brand new long password" },
      security.body,
    );
    const again = await browser.get("/account/security");
    expect((await browser.post("/account/security/logout-everywhere", {}, again.body)).statusCode).toBe(303);

    const cli = createTestCli(fixture.databaseUrl, "");
    expect(await audit(["list", "--json"], cli.ctx)).toBe(0);
    const entries = JSON.parse(cli.stdout()) as { actor: string; action: string }[];
    expect(entries.map((e) => [e.actor, e.action]).reverse()).toEqual([
      ["ida@example.com", "account.signup"],
      ["ida@example.com", "key.create"],
      ["ida@example.com", "key.roll"],
      ["ida@example.com", "key.revoke"],
      ["ida@example.com", "account.password_change"],
      ["ida@example.com", "account.logout_everywhere"],
    ]);
    const text = cli.stdout();
    expect(text).not.toContain(secret);
    expect(text).not.toContain(smtp.codeFor("ida@example.com"));
    expect(text).not.toContain(PERSON);
  });
});
