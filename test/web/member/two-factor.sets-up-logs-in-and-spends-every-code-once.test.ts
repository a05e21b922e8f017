/**
 * Two-factor log-in through the pages (docs/accounts.md "Two-factor log-in"), on both
 * databases: the set-up shows a secret made by the server (a posted one changes nothing),
 * its first code turns it on and shows 10 recovery codes; log-in then asks for a code, a
 * TOTP code is taken once per time step and a recovery code once; wrong codes count as
 * failed log-ins; turning it off takes the password and a code; the operator's reset;
 * each change audited with its actor; REQUIRE_2FA sends a person to set it up first.
 */
import { Secret, TOTP } from "otpauth";
import { afterEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../../harness/cli-context.js";
import { DATABASE_KINDS } from "../../../harness/databases.js";
import { FormBrowser, invitedBrowser, TEST_PASSWORD } from "../../../harness/form-browser.js";
import { run as accounts } from "../../../src/cli/accounts-command.js";
import { searchAudit } from "../../../src/operator/audit.js";
import { type HttpFixture, openHttpFixture } from "../../http/helpers.js";

const SECURITY = "/account/security";

function totpCode(secret: string, at: Date): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 });
  return totp.generate({ timestamp: at.getTime() });
}

const secretOf = (html: string) => /data-totp-secret="([A-Z2-7]+)"/.exec(html)?.[1] ?? "";
const recoveryOf = (html: string) => (/data-recovery-codes="([^"]+)"/.exec(html)?.[1] ?? "").split(" ");
const loginTokenOf = (html: string) => /name="login" value="([^"]+)"/.exec(html)?.[1] ?? "";

let fixture: HttpFixture;
afterEach(() => fixture?.close());

describe.each(DATABASE_KINDS)("two-factor log-in on %s", (kind) => {
  const later = (ms: number) => fixture.clock.set(new Date(fixture.clock.now().getTime() + ms));

  /** Sets two-factor up for the browser's account: the secret and the recovery codes. */
  async function turnOn(browser: FormBrowser) {
    const security = await browser.get(SECURITY);
    expect(security.body).toContain("Two-factor authentication");
    const setUp = await browser.post(`${SECURITY}/two-factor`, {}, security.body);
    expect(setUp.statusCode).toBe(200);
    const secret = secretOf(setUp.body);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setUp.body).toContain("<svg");
    const on = await browser.post(
      `${SECURITY}/two-factor/on`,
      { code: totpCode(secret, fixture.clock.now()) },
      setUp.body,
    );
    expect(on.statusCode, on.body).toBe(200);
    return { secret, recovery: recoveryOf(on.body), page: on.body };
  }

  /** The password step from a fresh browser: the code page's token, or the answer. */
  async function password(email: string, from = "127.0.0.1") {
    const browser = new FormBrowser(fixture.app);
    const page = await browser.get("/login");
    const answer = await browser.post(
      "/login",
      { email, password: TEST_PASSWORD },
      page.body,
      undefined,
      from,
    );
    return { browser, answer, token: loginTokenOf(answer.body) };
  }

  async function code(step: Awaited<ReturnType<typeof password>>, typed: string, from = "127.0.0.1") {
    return step.browser.post(
      "/login/code",
      { login: step.token, code: typed },
      step.answer.body,
      undefined,
      from,
    );
  }

  it("sets up from a server-made secret, then logs in with each code once", async () => {
    fixture = await openHttpFixture({ kind, signup: "invite" });
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    const security = await ann.get(SECURITY);
    const setUp = await ann.post(`${SECURITY}/two-factor`, {}, security.body);
    const secret = secretOf(setUp.body);

    // A secret posted by the client, a code of 10,000 digits, a wrong code: 4xx, still off.
    const mine = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
    const posted = await ann.post(
      `${SECURITY}/two-factor/on`,
      { secret: mine, code: totpCode(mine, fixture.clock.now()) },
      setUp.body,
    );
    expect(posted.statusCode).toBe(400);
    const named = await ann.post(`${SECURITY}/two-factor`, { totp_secret: mine }, security.body);
    expect(named.statusCode).toBe(400);
    const long = await ann.post(`${SECURITY}/two-factor/on`, { code: "1".repeat(10_000) }, setUp.body);
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('class="field-error"');
    const wrongCode = String((Number(totpCode(secret, fixture.clock.now())) + 1) % 1_000_000).padStart(
      6,
      "0",
    );
    expect((await ann.post(`${SECURITY}/two-factor/on`, { code: wrongCode }, setUp.body)).statusCode).toBe(
      400,
    );
    expect((await password("ann@example.com")).answer.statusCode).toBe(303);

    const first = totpCode(secret, fixture.clock.now());
    const on = await ann.post(`${SECURITY}/two-factor/on`, { code: first }, setUp.body);
    expect(on.statusCode).toBe(200);
    const recovery = recoveryOf(on.body);
    expect(recovery).toHaveLength(10);
    expect(new Set(recovery).size).toBe(10);
    expect((await ann.get(SECURITY)).body).toContain("Two-factor is <strong>on</strong>");

    // The password alone no longer logs in: the code step, with Code and Verify.
    const step = await password("ann@example.com");
    expect(step.answer.statusCode).toBe(200);
    expect(step.answer.body).toContain(">Code</label>");
    expect(step.answer.body).toContain(">Verify</button>");
    expect(step.answer.headers["set-cookie"] ?? "").not.toContain("mailrisk_session");
    // Neither a wrong code nor 10,000 digits; the app's code of now logs in.
    expect((await code(step, wrongCode)).statusCode).toBe(401);
    expect((await code(step, "9".repeat(10_000))).statusCode).toBe(400);
    const done = await code(step, first);
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe("/account");
    expect((await step.browser.get("/account")).statusCode).toBe(200);
    // The same code in another log-in, in its window: refused (replay); the next period's works.
    expect((await code(await password("ann@example.com"), first)).statusCode).toBe(401);
    later(30_000);
    const next = totpCode(secret, fixture.clock.now());
    expect((await code(await password("ann@example.com"), next)).statusCode).toBe(303);
    expect((await code(await password("ann@example.com"), next)).statusCode).toBe(401);

    // A recovery code logs in once (any case, with or without its dashes).
    const [spare = ""] = recovery;
    expect((await code(await password("ann@example.com"), spare.toUpperCase())).statusCode).toBe(303);
    expect((await code(await password("ann@example.com"), spare.replaceAll("-", ""))).statusCode).toBe(401);

    // Turning it off takes the password and a current code.
    expect((await ann.get(SECURITY)).body).toContain(">Turn off two-factor</button>");
    const page = (await ann.get(`${SECURITY}/two-factor/off`)).body;
    expect(page).toContain(">Turn off</button>");
    later(30_000);
    const now = totpCode(secret, fixture.clock.now());
    const wrongPassword = await ann.post(
      `${SECURITY}/two-factor/off`,
      { password: "not mine at all", code: now },
      page,
    );
    expect(wrongPassword.statusCode).toBe(400);
    const off = await ann.post(`${SECURITY}/two-factor/off`, { password: TEST_PASSWORD, code: now }, page);
    expect(off.statusCode).toBe(303);
    expect((await password("ann@example.com")).answer.statusCode).toBe(303);

    const actions = (await searchAudit(fixture.store, { action: "account" })).map((e) => [e.action, e.actor]);
    expect(actions).toContainEqual(["account.2fa_on", "ann@example.com"]);
    expect(actions).toContainEqual(["account.2fa_off", "ann@example.com"]);
    const audit = JSON.stringify(await searchAudit(fixture.store, {}));
    for (const secretThing of [secret, first, next, ...recovery]) expect(audit).not.toContain(secretThing);
  });

  it("counts wrong codes as failed log-ins: 10 lock that network out of the account", async () => {
    fixture = await openHttpFixture({ kind, signup: "invite" });
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    await turnOn(ann);
    const statuses: number[] = [];
    for (let round = 0; round < 2; round++) {
      const step = await password("ann@example.com", "10.9.9.9");
      expect(step.answer.statusCode).toBe(200);
      for (let i = 0; i < 5; i++) statuses.push((await code(step, `00000${i}`, "10.9.9.9")).statusCode);
    }
    expect(statuses).toEqual(Array(10).fill(401));
    const locked = await password("ann@example.com", "10.9.9.9");
    expect(locked.answer.statusCode).toBe(429);
    expect(Number(locked.answer.headers["retry-after"])).toBeGreaterThan(60);
    expect((await password("ann@example.com", "10.9.8.9")).answer.statusCode).toBe(200);
  });

  it("lets the operator clear it (mailrisk accounts reset-2fa), audited once", async () => {
    fixture = await openHttpFixture({ kind, signup: "invite" });
    const ann = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
    await turnOn(ann);
    const cli = createTestCli(fixture.databaseUrl);
    expect(await accounts(["reset-2fa", "ann@example.com"], cli.ctx)).toBe(0);
    expect(cli.stdout()).toContain("Two-factor log-in is off for ann@example.com");
    expect(await accounts(["reset-2fa", "ann@example.com"], createTestCli(fixture.databaseUrl).ctx)).toBe(0);
    expect((await password("ann@example.com")).answer.statusCode).toBe(303);
    const resets = await searchAudit(fixture.store, { action: "account.2fa_reset" });
    expect(resets.map((e) => e.actor)).toEqual(["cli"]);
    expect(await accounts(["reset-2fa", "nobody@example.com"], createTestCli(fixture.databaseUrl).ctx)).toBe(
      1,
    );
  });

  it("sends a person who must use it and has not set it up to /account/security before any other page", async () => {
    fixture = await openHttpFixture({ kind, signup: "invite", console: true, require2fa: "operators" });
    const member = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "mia@example.com");
    expect((await member.get("/account/keys")).statusCode).toBe(200);
    const operator = await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "op@example.com", {
      operator: true,
    });
    for (const path of ["/account", "/account/keys", "/console", "/console/accounts"]) {
      const answer = await operator.get(path);
      expect([path, answer.statusCode, answer.headers.location]).toEqual([path, 303, SECURITY]);
    }
    const security = await operator.get(SECURITY);
    expect(security.statusCode).toBe(200);
    expect(security.body).toContain("requires two-factor");
    await turnOn(operator);
    expect((await operator.get("/console")).statusCode).toBe(200);
    expect((await operator.get("/account")).statusCode).toBe(200);
  });
});
