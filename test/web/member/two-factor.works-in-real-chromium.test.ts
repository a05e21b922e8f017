/**
 * Two-factor log-in in real Chromium (docs/accounts.md "Two-factor log-in"), against the
 * whole app on loopback with CSP, CSRF and Origin on: set up through the visible buttons,
 * the code computed from the secret the page shows, log out, log in with a fresh code;
 * a wrong code refused; a recovery code works once; turned off with the password and a
 * code; axe-core finds nothing on the pages.
 */
import type { FastifyInstance } from "fastify";
import { Secret, TOTP } from "otpauth";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, launchChromium } from "../../../harness/chromium.js";
import { configWith } from "../../../harness/config.js";
import { openTestStore, type TestStore } from "../../../harness/databases.js";
import { TEST_ORIGIN, TEST_PASSWORD } from "../../../harness/form-browser.js";
import { buildApp } from "../../../src/app.js";
import { inviteAccount } from "../../../src/operator/accounts.js";
import { CLI_ACTOR } from "../../../src/operator/audit.js";
import { fakeChecker } from "../../http/helpers.js";

let testStore: TestStore;
let app: FastifyInstance;
let base: string;
let browser: Browser;

beforeAll(async () => {
  [testStore, browser] = await Promise.all([openTestStore("sqlite"), launchChromium()]);
  app = await buildApp({
    store: testStore.store,
    accounts: testStore.store,
    checker: fakeChecker(),
    logger: false,
    config: configWith({ signup: "invite" }),
  });
  base = await app.listen({ host: "127.0.0.1", port: 0 });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await testStore?.cleanup();
});

/** The code of the secret at this moment, waiting into the next period when this one's code is in `taken`. */
async function freshCode(secret: string, taken: Set<string>): Promise<string> {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 });
  for (;;) {
    const code = totp.generate();
    if (!taken.has(code)) {
      taken.add(code);
      return code;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function logInWithPassword(page: Page) {
  await page.goto(`${base}/login`);
  await page.getByLabel("Email").fill("ann@example.com");
  await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByLabel("Code").waitFor();
}

describe("two-factor in Chromium", () => {
  it("sets up from the shown secret, logs in with a computed code, refuses a wrong one and takes a recovery code once", async () => {
    const links = { signup: "invite" as const, publicUrl: null, signupPlan: "free", mailer: undefined };
    const link = await inviteAccount(
      testStore.store,
      { email: "ann@example.com" },
      links,
      new Date(),
      CLI_ACTOR,
    );
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));

    await page.goto(`${base}${new URL(link.url, TEST_ORIGIN).pathname}`);
    await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.waitForURL(`${base}/account`);

    await page.goto(`${base}/account/security`);
    await expect.poll(() => page.getByRole("heading", { name: "Two-factor authentication" }).count()).toBe(1);
    expect(await axeViolations(page), "/account/security").toEqual([]);
    await page.getByRole("button", { name: "Set up two-factor" }).click();
    const shown = page.locator("[data-totp-secret]");
    await shown.waitFor();
    const secret = (await shown.textContent())?.trim() ?? "";
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(await shown.getAttribute("data-totp-secret")).toBe(secret);
    expect(await page.locator(".qr svg").count()).toBe(1);
    expect(await axeViolations(page), "the set-up").toEqual([]);
    // The set-up's code is no log-in: the same code logs in right after (a log-in's code is taken once).
    const taken = new Set<string>();
    await page.getByLabel("Code").fill(await freshCode(secret, new Set()));
    await page.getByRole("button", { name: "Turn on" }).click();
    const list = page.locator("[data-recovery-codes]");
    await list.waitFor();
    const recovery = ((await list.getAttribute("data-recovery-codes")) ?? "").split(" ");
    expect(recovery).toHaveLength(10);
    expect(await list.locator("li").count()).toBe(10);
    expect(((await list.textContent()) ?? "").trim().split(/\s+/)).toEqual(recovery);
    expect(await axeViolations(page), "the recovery codes").toEqual([]);

    await page.goto(`${base}/account`);
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL(`${base}/login`);

    // A wrong code is refused; a code computed from the shown secret logs in.
    await logInWithPassword(page);
    expect(await axeViolations(page), "the code step").toEqual([]);
    const now = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate();
    await page.getByLabel("Code").fill(String((Number(now) + 500_000) % 1_000_000).padStart(6, "0"));
    await page.getByRole("button", { name: "Verify" }).click();
    await expect.poll(() => page.locator(".field-error").textContent()).toContain("wrong");
    await page.getByLabel("Code").fill(await freshCode(secret, taken));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL(`${base}/account`);

    // A recovery code works once.
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL(`${base}/login`);
    await logInWithPassword(page);
    await page.getByLabel("Code").fill(recovery[3] ?? "");
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL(`${base}/account`);
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL(`${base}/login`);
    await logInWithPassword(page);
    await page.getByLabel("Code").fill(recovery[3] ?? "");
    await page.getByRole("button", { name: "Verify" }).click();
    await expect.poll(() => page.locator(".field-error").textContent()).toContain("wrong");
    expect(page.url()).toBe(`${base}/login/code`);

    // Turning it off asks for the password and a code (here a recovery code).
    await logInWithPassword(page);
    await page.getByLabel("Code").fill(recovery[5] ?? "");
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL(`${base}/account`);
    await page.goto(`${base}/account/security`);
    await page.getByRole("button", { name: "Turn off two-factor" }).click();
    await page.getByLabel("Code").waitFor();
    expect(await axeViolations(page), "turning it off").toEqual([]);
    await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
    await page.getByLabel("Code").fill(recovery[6] ?? "");
    await page.getByRole("button", { name: "Turn off", exact: true }).click();
    await page.getByRole("button", { name: "Set up two-factor" }).waitFor();

    expect(errors).toEqual([]);
    await context.close();
  });
});
