/**
 * The web console as people meet it, in real Chromium (the default context: CSP on, the
 * server's own sessions and CSRF check, `Origin` included), against the whole app on
 * loopback with SMTP_URL and PUBLIC_URL set, on SQLite and on PostgreSQL (docs/accounts.md,
 * docs/console.md):
 * - from the home page by visible links only, a person signs up, confirms by the mailed
 *   code, sees the first key once (with its copy button and a curl line), calls the API
 *   with it, and the chart's total equals /v2/usage's `used`, also after a list upload
 *   whose job is cancelled (its units given back);
 * - the keys page creates, rolls and revokes through a second step; the security page
 *   changes the password and logs out everywhere;
 * - an operator logs in, goes from /account to the desk and back, and every form of the
 *   desk changes what the CLI and the audit log say: invite (the mailed link opens the
 *   set-password page, whose answer shows the invited person's first key once), plan
 *   Save, account Save, Suspend, Resume, override Set and Remove, report Accept and
 *   Reject;
 * - axe-core finds nothing on any page of the account and the desk, and no table cell
 *   breaks inside a word at 1280 × 800 or 390 × 844.
 */

import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import type { FastifyInstance } from "fastify";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, launchChromium } from "../../../harness/chromium.js";
import { createTestCli } from "../../../harness/cli-context.js";
import { configWith } from "../../../harness/config.js";
import {
  DATABASE_KINDS,
  type DatabaseKind,
  openTestStore,
  type TestStore,
} from "../../../harness/databases.js";
import { type LoopbackNetwork, startLoopbackNetwork } from "../../../harness/loopback-network.js";
import { fixture } from "../../../harness/loopback-registries.js";
import { buildApp } from "../../../src/app.js";
import { run as accountsCli } from "../../../src/cli/accounts-command.js";
import { run as overridesCli } from "../../../src/cli/overrides-command.js";
import { loadConfig } from "../../../src/config.js";
import { hashPassword } from "../../../src/service/accounts/account-access.js";
import type { Checker } from "../../../src/service/checking/checker.js";
import { createChecker } from "../../../src/service/checking/create-checker.js";
import { codeIn, type SmtpCapture, startSmtpCapture } from "./smtp-capture.js";

const PASSWORD = "a good long password";
const OPERATOR = "ops@gmail.com";

let network: LoopbackNetwork;
let testStore: TestStore;
let checker: Checker;
let app: FastifyInstance;
let smtp: SmtpCapture;
let base: string;
let browser: Browser;

/** A port free now, so that PUBLIC_URL can name the address the app then listens at. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  [network, browser] = await Promise.all([
    startLoopbackNetwork({
      rdap: (domain) =>
        domain === "gmail.com" ? { status: 200, body: fixture("rdap/registered.json") } : { status: 404 },
    }),
    launchChromium(),
  ]);
  smtp = await startSmtpCapture();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await smtp?.close();
  await network?.close();
});

/** The whole app on `kind`, listening at PUBLIC_URL, with an operator account. */
async function openApp(kind: DatabaseKind): Promise<void> {
  smtp.mails.length = 0;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  testStore = await openTestStore(kind);
  const env = { ...network.env, DATABASE_URL: testStore.database.url, LIST_SOURCES: "off" };
  const config = loadConfig(env);
  checker = createChecker({ config, store: testStore.store });
  app = await buildApp({
    store: testStore.store,
    accounts: testStore.store,
    checker,
    logger: false,
    // The pages' limit is not what this test is about: it walks every page several times.
    config: configWith({
      signup: "open",
      smtpUrl: smtp.url,
      publicUrl: base,
      mailFrom: "mailrisk@test.example",
      pageRateLimit: 10_000,
    }),
    console: { store: testStore.store, changes: { settle: async () => undefined } },
  });
  await app.listen({ host: "127.0.0.1", port });
  await testStore.store.accounts.createAccount({
    email: OPERATOR,
    passwordHash: await hashPassword(PASSWORD),
    role: "operator",
    plan: "free",
    now: new Date(),
  });
}

async function closeApp(): Promise<void> {
  await app?.close();
  await checker?.drain();
  await testStore?.cleanup();
}

/** A fresh context (as a person's browser: CSP on, no bypass); `errors` collects script errors and CSP reports. */
async function person(viewport = { width: 1280, height: 800 }) {
  const context: BrowserContext = await browser.newContext({ viewport });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("response", (response) => {
    if (response.status() >= 500) errors.push(`${response.status()} ${response.url()}`);
  });
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  return { context, page, errors };
}

/** Clicks a button (or link) and waits for the page it leads to. */
async function press(page: Page, role: "button" | "link", name: string) {
  const loaded = page.waitForEvent("load");
  await page.getByRole(role, { name, exact: true }).first().click();
  await loaded;
}

/**
 * Words of table cells the layout broke across lines: a run of letters and digits in more
 * than one line box (a break at a separator, `-` `.` `:` `/` `@` or a space, is no break in a word).
 */
async function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const broken = [];
    for (const cell of document.querySelectorAll("th, td")) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent || "";
        for (const match of text.matchAll(/[\\p{L}\\p{N}]+/gu)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (tops.size > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  })()`);
}

/** The API's count of this key's period. */
async function usedOf(secret: string): Promise<number> {
  const answer = await fetch(`${base}/v2/usage`, { headers: { authorization: `Bearer ${secret}` } });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { used: number }).used;
}

/** The overview's chart total (all keys) and the quota's `used` as the page shows them. */
async function pageFigures(page: Page): Promise<{ chart: number; quota: number }> {
  await press(page, "link", "Overview");
  const chart = Number(
    await page.locator("#chart-heading ~ figure svg").first().getAttribute("data-chart-current"),
  );
  const quota = Number(((await page.locator("[data-quota-used]").textContent()) ?? "").replace(/,/g, ""));
  return { chart, quota };
}

const ACCOUNT_PAGES = [
  "/account",
  "/account/keys",
  "/account/jobs",
  "/account/reports",
  "/account/lists",
  "/account/security",
];
const DESK_PAGES = [
  "/console",
  "/console/reports",
  "/console/overrides",
  "/console/plans",
  "/console/lists",
  "/console/webhooks",
  "/console/accounts",
  "/console/audit",
];

describe.each(DATABASE_KINDS)("the console in Chromium, as people meet it, on %s", (kind) => {
  beforeAll(() => openApp(kind), 60_000);
  afterAll(closeApp);

  it("signs up from the home page, shows the first key once, and the chart agrees with the quota through a cancelled job", async () => {
    const { context, page, errors } = await person();
    await page.goto(`${base}/`);
    expect(await page.locator("#api-heading ~ p").first().innerText()).toContain("sign up");
    await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Sign up" }).click();
    await page.waitForURL(`${base}/signup`);
    // The sign-up page links to the log-in and reset pages, and they back.
    expect(await page.getByRole("link", { name: "Log in" }).getAttribute("href")).toBe("/login");
    expect(await page.getByRole("link", { name: "Forgot your password?" }).getAttribute("href")).toBe(
      "/reset",
    );
    await page.getByLabel("Email").fill("person@gmail.com");
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.getByLabel("Code").waitFor();
    await expect.poll(() => smtp.mails.length).toBe(1);
    const code = codeIn(smtp.mails[0]);
    await page.getByLabel("Code").fill(code);
    await press(page, "button", "Confirm");
    expect(page.url()).toBe(`${base}/account`);

    // The first key, once: its secret, a working copy button and a curl line that uses it.
    const shown = page.locator("#first-key-heading-secret");
    const secret = (await shown.getAttribute("data-secret")) ?? "";
    expect(secret).toMatch(/^mr_[0-9A-Za-z]{32}$/);
    expect(await page.locator("#first-key-heading-curl").innerText()).toBe(
      `curl -s "${base}/v2/" -H 'Authorization: Bearer ${secret}' -d email=someone@example.com`,
    );
    await page.getByRole("button", { name: "Copy key" }).click();
    await expect.poll(() => page.getByRole("button", { name: "Copied" }).count()).toBe(1);
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(secret);
    expect(await axeViolations(page), "the first key").toEqual([]);
    await page.reload();
    expect(await page.locator("[data-secret]").count()).toBe(0);

    // The API with it; the page's figures are the API's.
    for (let i = 0; i < 3; i++) {
      const answer = await fetch(`${base}/v2/`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ domain: "gmail.com" }),
      });
      expect(answer.status).toBe(200);
    }
    expect(await usedOf(secret)).toBe(3);
    expect(await pageFigures(page)).toEqual({ chart: 3, quota: 3 });
    const chart = page.locator("#chart-heading ~ figure svg").first();
    expect(await chart.locator("text").count()).toBeGreaterThan(4);
    expect(await chart.locator("title").first().textContent()).toContain("3 checks this period");

    // A list uploaded counts its items; cancelling the job gives the unchecked ones back.
    await press(page, "link", "Jobs");
    await page.getByLabel("File").setInputFiles({
      name: "contacts.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("a@gmail.com\nb@gmail.com\nc@gmail.com\nd@gmail.com\n"),
    });
    await press(page, "button", "Upload");
    expect(await usedOf(secret)).toBe(7);
    expect(await pageFigures(page)).toEqual({ chart: 7, quota: 7 });
    await press(page, "link", "Jobs");
    await press(page, "button", "Cancel");
    expect(await usedOf(secret)).toBe(3);
    expect(await pageFigures(page)).toEqual({ chart: 3, quota: 3 });

    // Keys: create (copy and curl), roll and revoke through a second step, styled apart.
    await press(page, "link", "Keys");
    await page.getByLabel("Name").fill("backend");
    await press(page, "button", "Create key");
    const created = (await page.locator("#secret-heading-secret").getAttribute("data-secret")) ?? "";
    expect(await page.locator("#secret-heading-curl").innerText()).toContain(created);
    expect(await page.getByRole("button", { name: "Copy key" }).isVisible()).toBe(true);
    const roll = page.getByRole("link", { name: "Roll backend" });
    const revoke = page.getByRole("link", { name: "Revoke backend" });
    expect(await roll.getAttribute("class")).not.toBe(await revoke.getAttribute("class"));
    await roll.click();
    await page.waitForURL(/\/roll$/);
    expect(await axeViolations(page), "roll").toEqual([]);
    await press(page, "button", "Roll key");
    const rolled = (await page.locator("#secret-heading-secret").getAttribute("data-secret")) ?? "";
    expect(rolled).toMatch(/^mr_/);
    expect(rolled).not.toBe(created);
    await page.getByRole("link", { name: "Revoke backend" }).first().click();
    await page.waitForURL(/\/revoke$/);
    expect(await page.locator("main").innerText()).toContain("cannot be undone");
    expect(await axeViolations(page), "revoke").toEqual([]);
    // Going back changes nothing.
    await press(page, "link", "Cancel, keep the key as it is");
    expect(await usedOf(rolled)).toBeGreaterThanOrEqual(0);
    await page.getByRole("link", { name: "Revoke backend" }).first().click();
    await page.waitForURL(/\/revoke$/);
    await press(page, "button", "Revoke key");
    const stillWorks = await fetch(`${base}/v2/usage`, { headers: { authorization: `Bearer ${rolled}` } });
    const revokedOne = await fetch(`${base}/v2/usage`, { headers: { authorization: `Bearer ${created}` } });
    expect([stillWorks.status, revokedOne.status].sort()).toEqual([200, 401]);
    expect(await page.locator("tbody").innerText()).toContain("revoked");

    // Every page of the account: no axe violation, no word broken in a table cell, at both sizes.
    for (const path of ACCOUNT_PAGES) {
      await page.goto(`${base}${path}`);
      expect(await axeViolations(page), path).toEqual([]);
      expect(await brokenWords(page), path).toEqual([]);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of ACCOUNT_PAGES) {
      await page.goto(`${base}${path}`);
      expect(await brokenWords(page), `${path} on a phone`).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    // Security: change the password, then log out everywhere; Log in then shows the form again.
    await press(page, "link", "Security");
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("New password").fill("another good password");
    await press(page, "button", "Change password");
    expect(await page.getByRole("status").innerText()).toContain("Your password is changed");
    await press(page, "button", "Log out everywhere");
    expect(page.url()).toBe(`${base}/login`);
    expect(await page.getByRole("link", { name: "Sign up" }).count()).toBeGreaterThan(0);
    await page.getByLabel("Email").fill("person@gmail.com");
    await page.getByLabel("Password", { exact: true }).fill("another good password");
    await press(page, "button", "Log in");
    expect(page.url()).toBe(`${base}/account`);
    // Logged in, the home page's Log in leads straight to the account.
    await page.goto(`${base}/`);
    await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Log in" }).click();
    await page.waitForURL(`${base}/account`);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it("lets the operator change everything through the desk's buttons, as the CLI and the audit log then say", async () => {
    const { key } = await testStore.store.keys.createKey({ plan: "free", now: new Date() });
    const keyId = key.id;
    const filed = async (domain: string) => {
      const answer = await testStore.store.reports.fileReport(
        { keyId, domain, expected: "allow", note: "ours", filedAt: new Date() },
        { max: 10, windowMs: 86_400_000 },
      );
      if (!("report" in answer)) throw new Error(answer.outcome);
      return answer.report.id;
    };
    const accepted = await filed("mailinator.com");
    const rejected = await filed("guerrillamail.com");
    await testStore.store.plans.createPlan({ name: "partner", quota: 500, periodDays: 30 });
    const cli = async (run: typeof accountsCli, ...args: string[]) => {
      const test = createTestCli(testStore.database.url);
      expect(await run(args, test.ctx)).toBe(0);
      return JSON.parse(test.stdout()) as unknown;
    };
    const audit = async () =>
      (await testStore.store.audit.search({ limit: 100 })).map((entry) => entry.action);

    const { context, page, errors } = await person();
    await page.goto(`${base}/login`);
    await page.getByLabel("Email").fill(OPERATOR);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await press(page, "button", "Log in");
    await press(page, "link", "Operator's desk");
    expect(page.url()).toBe(`${base}/console`);
    await press(page, "link", "Your account");
    expect(page.url()).toBe(`${base}/account`);
    await page.goto(`${base}/console/accounts`);

    // Invite: the mailed link is whole and opens the set-password page.
    await page.getByLabel("Email", { exact: true }).fill("dan@gmail.com");
    await page.getByLabel("Plan", { exact: true }).selectOption("partner");
    await press(page, "button", "Invite");
    await expect.poll(() => smtp.bodyFor("dan@gmail.com")).not.toBe("");
    const link = new RegExp(`${base}/invite/[A-Za-z0-9_-]+`).exec(smtp.bodyFor("dan@gmail.com"))?.[0] ?? "";
    expect(link).not.toBe("");
    const invited = await person();
    await invited.page.goto(link);
    expect(await invited.page.getByRole("heading", { level: 1 }).innerText()).toBe("Set your password");
    await invited.page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await press(invited.page, "button", "Set password");
    expect(invited.page.url()).toBe(`${base}/account`);
    const dansKey = (await invited.page.locator("[data-secret]").getAttribute("data-secret")) ?? "";
    expect(await usedOf(dansKey)).toBe(0);
    await invited.context.close();
    expect(await cli(accountsCli, "show", "dan@gmail.com", "--json")).toMatchObject({ plan: "partner" });

    // The account's plan (Save), Suspend and Resume.
    await page.goto(`${base}/console/accounts`);
    await page.getByLabel("Plan of dan@gmail.com").selectOption("free");
    await press(page, "button", "Save");
    expect(await cli(accountsCli, "show", "dan@gmail.com", "--json")).toMatchObject({ plan: "free" });
    // Dan's row: another account may be as new as Dan's (one clock tick) and listed first.
    const dansRow = page.locator("tr", { hasText: "dan@gmail.com" });
    const submitted = page.waitForEvent("load");
    await dansRow.getByRole("button", { name: "Suspend", exact: true }).click();
    await submitted;
    expect(await cli(accountsCli, "show", "dan@gmail.com", "--json")).toMatchObject({ state: "suspended" });
    expect(
      (await fetch(`${base}/v2/usage`, { headers: { authorization: `Bearer ${dansKey}` } })).status,
    ).toBe(401);
    const resumed = page.waitForEvent("load");
    await dansRow.getByRole("button", { name: "Resume", exact: true }).click();
    await resumed;
    expect(await cli(accountsCli, "show", "dan@gmail.com", "--json")).toMatchObject({ state: "active" });

    // A plan's quota (Save).
    await page.goto(`${base}/console/plans`);
    await page.getByLabel("Quota of partner").fill("2500");
    await page
      .locator("form", { has: page.getByLabel("Quota of partner") })
      .getByRole("button", { name: "Save" })
      .click();
    await page.waitForLoadState("load");
    expect((await testStore.store.plans.listPlans()).find((plan) => plan.name === "partner")?.quota).toBe(
      2500,
    );

    // An override: Set, then Remove.
    await page.goto(`${base}/console/overrides`);
    await page.getByLabel("Domain or host").fill("spam.example");
    await page.getByLabel("Note").fill("abuse");
    await press(page, "button", "Set");
    expect(JSON.stringify(await cli(overridesCli, "list", "--json"))).toContain("spam.example");
    await press(page, "button", "Remove");
    expect(JSON.stringify(await cli(overridesCli, "list", "--json"))).not.toContain("spam.example");

    // Reports: Accept one, Reject the other.
    await page.goto(`${base}/console/reports`);
    await page.locator(`#report-${accepted}-note`).fill("a real provider");
    await page.locator(`form:has(#report-${accepted}-note)`).getByRole("button", { name: "Accept" }).click();
    await page.waitForURL(`${base}/console/reports`);
    await page.locator(`form:has(#report-${rejected}-note)`).getByRole("button", { name: "Reject" }).click();
    await page.waitForURL(`${base}/console/reports`);
    expect((await testStore.store.reports.getReport(accepted))?.status).toBe("accepted");
    expect((await testStore.store.reports.getReport(rejected))?.status).toBe("rejected");

    expect(await audit()).toEqual(
      expect.arrayContaining([
        "account.invite",
        "account.set_plan",
        "account.suspend",
        "account.resume",
        "plan.update",
        "override.set",
        "override.remove",
        "report.accept",
        "report.reject",
      ]),
    );

    for (const path of DESK_PAGES) {
      expect((await page.goto(`${base}${path}`))?.status(), path).toBe(200);
      expect(await axeViolations(page), path).toEqual([]);
      expect(await brokenWords(page), path).toEqual([]);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of DESK_PAGES) {
      await page.goto(`${base}${path}`);
      expect(await brokenWords(page), `${path} on a phone`).toEqual([]);
    }
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
