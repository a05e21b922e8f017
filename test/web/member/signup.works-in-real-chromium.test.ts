/**
 * Sign-up in real Chromium (docs/accounts.md), against the whole service on loopback and a
 * loopback SMTP server the test starts: a disposable address is refused with the verdict,
 * a good one gets its code by mail, confirms, lands on /account, creates a key and sees
 * its request counted; axe-core finds no violation on the pages for people.
 */
import type { FastifyInstance } from "fastify";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, launchChromium } from "../../../harness/chromium.js";
import { configWith } from "../../../harness/config.js";
import { openTestStore, type TestStore } from "../../../harness/databases.js";
import { type LoopbackNetwork, startLoopbackNetwork } from "../../../harness/loopback-network.js";
import { fixture } from "../../../harness/loopback-registries.js";
import { buildApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config.js";
import type { Checker } from "../../../src/service/checking/checker.js";
import { createChecker } from "../../../src/service/checking/create-checker.js";
import { codeIn, type SmtpCapture, startSmtpCapture } from "./smtp-capture.js";

const PASSWORD = "a good long password";

let network: LoopbackNetwork;
let testStore: TestStore;
let checker: Checker;
let app: FastifyInstance;
let smtp: SmtpCapture;
let base: string;
let browser: Browser;

beforeAll(async () => {
  [network, browser] = await Promise.all([
    startLoopbackNetwork({
      rdap: (domain) =>
        domain === "gmail.com" ? { status: 200, body: fixture("rdap/registered.json") } : { status: 404 },
    }),
    launchChromium(),
  ]);
  smtp = await startSmtpCapture();
  testStore = await openTestStore("sqlite");
  const config = loadConfig({ ...network.env, DATABASE_URL: testStore.database.url, LIST_SOURCES: "off" });
  checker = createChecker({ config, store: testStore.store });
  app = await buildApp({
    store: testStore.store,
    accounts: testStore.store,
    checker,
    logger: false,
    config: configWith({ signup: "open", smtpUrl: smtp.url, mailFrom: "mailrisk@test.example" }),
  });
  base = await app.listen({ host: "127.0.0.1", port: 0 });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await checker?.drain();
  await testStore?.cleanup();
  await smtp?.close();
  await network?.close();
});

describe("sign-up in Chromium", () => {
  it("refuses a disposable address with the verdict, then signs a good one up by its mailed code", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));

    await page.goto(`${base}/signup`);
    await page.getByLabel("Email").fill("someone@mailinator.com");
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign up" }).click();
    await expect.poll(() => page.locator(".field-error").textContent()).toContain("cannot sign up");
    expect(smtp.mails).toEqual([]);

    await page.getByLabel("Email").fill("person@gmail.com");
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.getByLabel("Code").waitFor();
    await expect.poll(() => smtp.mails.length).toBe(1);
    const code = codeIn(smtp.mails[0]);
    expect(smtp.mails[0]?.to).toBe("person@gmail.com");
    await page.getByLabel("Code").fill(code);
    await page.getByRole("button", { name: "Confirm" }).click();
    await page.waitForURL(`${base}/account`);

    await page.goto(`${base}/account/keys`);
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = (await page.locator("[data-secret]").getAttribute("data-secret")) ?? "";
    expect(secret).toMatch(/^mr_[0-9A-Za-z]{32}$/);
    const answer = await fetch(`${base}/v2/`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ domain: "gmail.com" }),
    });
    expect(answer.status).toBe(200);
    await testStore.store.usage.flushDailyUsage();
    await page.goto(`${base}/account`);
    expect(await page.locator("#chart-heading ~ figure svg").first().getAttribute("data-chart-current")).toBe(
      "1",
    );
    expect(await page.locator("[data-quota-used]").textContent()).toBe("1");
    expect(await page.locator("meter").getAttribute("value")).toBe("1");

    // Log out, reset the password by a mailed code (logged in at once), log in again with the new one.
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL(`${base}/login`);
    await page.goto(`${base}/reset`);
    await page.getByLabel("Email").fill("person@gmail.com");
    await page.getByRole("button", { name: "Send code" }).click();
    await page.getByLabel("Code").waitFor();
    await expect.poll(() => smtp.mails.length).toBe(2);
    const resetCode = codeIn(smtp.mails[1]);
    await page.getByLabel("Code").fill(resetCode);
    await page.getByLabel("Password", { exact: true }).fill("another good password");
    await page.getByRole("button", { name: "Set password" }).click();
    // The reset ends every session and opens a new one for this browser.
    await page.waitForURL(`${base}/account`);
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL(`${base}/login`);
    await page.getByLabel("Email").fill("person@gmail.com");
    await page.getByLabel("Password", { exact: true }).fill("another good password");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL(`${base}/account`);

    for (const path of [
      "/account",
      "/account/keys",
      "/account/reports",
      "/account/security",
      "/signup",
      "/login",
      "/reset",
    ]) {
      if (path === "/signup") await context.clearCookies();
      await page.goto(`${base}${path}`);
      const violations = await axeViolations(page);
      expect(violations, path).toEqual([]);
    }
    expect(errors).toEqual([]);
    await context.close();
  });
});
