/**
 * The rest of the log-in throttle (docs/security.md "Log-in throttling"): over 100
 * failures for one account from many networks in an hour add a mailed code to its next
 * log-in (a loopback SMTP server takes the mail), never a lock; and a server without
 * TRUST_PROXY that gets a proxy's forwarding headers logs one warning naming the setting.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FormBrowser, invitedBrowser, TEST_PASSWORD } from "../../../harness/form-browser.js";
import { CODES_PER_HOUR } from "../../../src/operator/one-time-secrets.js";
import { capturedLogger, type HttpFixture, openHttpFixture } from "../../http/helpers.js";
import { codeIn, type SmtpCapture, startSmtpCapture } from "./smtp-capture.js";

let fixture: HttpFixture | undefined;
afterEach(() => fixture?.close());

describe("many failures from many networks", () => {
  let smtp: SmtpCapture;
  beforeEach(async () => {
    smtp = await startSmtpCapture();
  });
  afterEach(() => smtp.close());

  async function logIn(email: string, password: string, from: string) {
    const browser = new FormBrowser(fixture?.app as HttpFixture["app"]);
    const page = await browser.get("/login");
    const answer = await browser.post("/login", { email, password }, page.body, undefined, from);
    return { browser, answer };
  }

  it("adds a mailed code to the account's next log-in after 101 failures, and never locks it", async () => {
    fixture = await openHttpFixture({
      signup: "invite",
      smtpUrl: smtp.url,
      mailFrom: "mailrisk@test.example",
      pageRateLimit: 10_000,
    });
    const { app, store, clock } = fixture;
    await invitedBrowser(app, store, clock.now(), "ann@example.com");
    // Ten from each of eleven networks: 110 failures, each network locked out in turn.
    for (let network = 0; network < 11; network++)
      for (let i = 0; i < 10; i++)
        expect((await logIn("ann@example.com", `wrong ${i}`, `10.0.${network}.1`)).answer.statusCode).toBe(
          401,
        );
    expect(smtp.mails).toEqual([]);

    const { browser, answer } = await logIn("ann@example.com", TEST_PASSWORD, "10.0.99.1");
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain("we mailed you a code");
    await expect.poll(() => smtp.mails.length).toBe(1);
    expect(smtp.mails[0]?.to).toBe("ann@example.com");
    const code = codeIn(smtp.mails[0]);
    const token = /name="login" value="([^"]+)"/.exec(answer.body)?.[1] ?? "";
    const wrong = String((Number(code) + 1) % 100_000_000).padStart(8, "0");
    const refused = await browser.post(
      "/login/code",
      { login: token, code: wrong },
      answer.body,
      undefined,
      "10.0.99.1",
    );
    expect(refused.statusCode).toBe(401);
    const done = await browser.post(
      "/login/code",
      { login: token, code },
      answer.body,
      undefined,
      "10.0.99.1",
    );
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe("/account");
    // The code is spent with its log-in.
    const again = await browser.post(
      "/login/code",
      { login: token, code },
      answer.body,
      undefined,
      "10.0.99.1",
    );
    expect(again.statusCode).toBe(400);
    // Ten minutes on, the mailbox's other codes of the hour go out; then the right password
    // is refused with the time its hour has left (the first code opened it).
    clock.set(new Date(clock.now().getTime() + 10 * 60_000));
    for (let i = 1; i < CODES_PER_HOUR; i++)
      expect((await logIn("ann@example.com", TEST_PASSWORD, "10.0.99.1")).answer.statusCode).toBe(200);
    const limited = (await logIn("ann@example.com", TEST_PASSWORD, "10.0.99.1")).answer;
    expect(limited.statusCode).toBe(429);
    expect(limited.headers["retry-after"]).toBe(String(50 * 60));
    expect(limited.body).toContain("try again in 50 minutes");
    await expect.poll(() => smtp.mails.length).toBe(CODES_PER_HOUR);
    // An hour on, the password alone logs in again.
    clock.set(new Date(clock.now().getTime() + 61 * 60_000));
    expect((await logIn("ann@example.com", TEST_PASSWORD, "10.0.99.1")).answer.statusCode).toBe(303);
  });
});

describe("forwarding headers without TRUST_PROXY", () => {
  const warnings = (lines: string[]) => lines.filter((line) => line.includes("TRUST_PROXY"));

  it("logs one warning naming TRUST_PROXY when they come from a proxy's address, none from a public one", async () => {
    const { lines, logger } = capturedLogger();
    fixture = await openHttpFixture({ logger });
    const from = (remoteAddress: string) =>
      fixture?.app.inject({ url: "/healthz", remoteAddress, headers: { "x-forwarded-for": "198.51.100.7" } });
    await from("203.0.113.9");
    expect(warnings(lines)).toEqual([]);
    await from("127.0.0.1");
    await from("10.0.0.2");
    expect(warnings(lines)).toHaveLength(1);
    expect(JSON.parse(warnings(lines)[0] ?? "{}")).toMatchObject({ level: 40 });
  });

  it("stays quiet when TRUST_PROXY is set", async () => {
    const { lines, logger } = capturedLogger();
    fixture = await openHttpFixture({ logger, trustProxy: ["127.0.0.1"] });
    await fixture.app.inject({
      url: "/healthz",
      remoteAddress: "127.0.0.1",
      headers: { "x-forwarded-for": "198.51.100.7" },
    });
    expect(warnings(lines)).toEqual([]);
  });
});
