/**
 * The operator's desk in real Chromium (docs/console.md "The operator's desk"): the app
 * listening on loopback with the test's stand-in for the accounts' sessions; axe-core
 * finds no violation on any page of the desk nor on an invitation's answer; on a phone
 * nothing scrolls sideways; the operator accepts a report with its button, without
 * JavaScript of ours, and the audit log shows it with their email; they move an account
 * to another plan, suspend it and invite someone with the accounts page's labelled fields.
 */
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, launchChromium } from "../../../harness/chromium.js";
import { testOperatorAccess } from "../../../harness/operator-access.js";
import { type HttpFixture, openHttpFixture } from "../../http/helpers.js";

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
let browser: Browser;
let base: string;

beforeAll(async () => {
  [fixture, browser] = await Promise.all([
    openHttpFixture({ operatorAccess: testOperatorAccess, signup: "invite" }),
    launchChromium(),
  ]);
  base = await fixture.app.listen({ host: "127.0.0.1", port: 0 });
  const { id: keyId } = await fixture.newKey();
  await fixture.store.reports.fileReport(
    {
      keyId,
      domain: "mailinator.com",
      expected: "allow",
      note: "our users' provider",
      filedAt: fixture.clock.now(),
    },
    { max: 10, windowMs: 86_400_000 },
  );
  await fixture.store.webhooks.createWebhook({
    url: "https://hooks.example/mailrisk",
    secret: "a-secret-of-the-test-0123456789",
    events: ["domain.blocked"],
    now: fixture.clock.now(),
  });
  await fixture.store.plans.createPlan({ name: "partner", quota: 500, periodDays: 30 });
  await fixture.store.accounts.createAccount({
    email: "ann@example.com",
    passwordHash: null,
    role: "member",
    plan: "free",
    now: fixture.clock.now(),
  });
  await fixture.store.overrides.setOverride({
    kind: "domain",
    value: "spam.example",
    action: "deny",
    note: "abuse",
    createdAt: fixture.clock.now(),
  });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await fixture?.close();
});

/** A browser signed in as the operator; `errors` collects script errors and CSP violations. */
async function operatorBrowser(viewport = { width: 1280, height: 900 }, javaScriptEnabled = true) {
  const phone = viewport.width < 600;
  const context: BrowserContext = await browser.newContext({
    viewport,
    isMobile: phone,
    hasTouch: phone,
    javaScriptEnabled,
  });
  await context.addCookies([{ name: "operator", value: "ops%40example.org", url: base }]);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  return { page, errors, close: () => context.close() };
}

describe("the console in Chromium", () => {
  it("has no accessibility violation on any page (axe-core), and nothing scrolls sideways on a phone", async () => {
    const { page, errors, close } = await operatorBrowser();
    for (const path of PAGES) {
      expect((await page.goto(`${base}${path}`))?.status(), path).toBe(200);
      expect(await axeViolations(page), path).toEqual([]);
    }
    // The page an invitation is answered with, its one-time link shown once.
    await page.goto(`${base}/console/accounts`);
    await page.getByLabel("Email", { exact: true }).fill("dan@example.net");
    await page.getByRole("button", { name: "Invite", exact: true }).click();
    await page.locator("[data-invite-link]").waitFor();
    expect(await axeViolations(page), "the invitation").toEqual([]);
    expect(errors).toEqual([]);
    await close();

    const phone = await operatorBrowser({ width: 375, height: 740 });
    for (const path of PAGES) {
      await phone.page.goto(`${base}${path}`);
      const overflow = await phone.page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth",
      );
      expect(overflow, path).toBe(0);
    }
    await phone.close();
  });

  it("lets the operator accept a report with its button, without JavaScript, and the audit log shows it with their email", async () => {
    const { page, errors, close } = await operatorBrowser(undefined, false);
    await page.goto(`${base}/console/reports`);
    await page.getByLabel("Review note").fill("a real provider");
    await page.getByRole("button", { name: "Accept" }).click();
    await page.waitForURL(`${base}/console/reports`);
    expect(await page.locator("main").innerText()).toContain("No open reports.");

    await page.goto(`${base}/console/audit`);
    await page.getByLabel("Action").fill("report.accept");
    await page.getByRole("button", { name: "Search" }).click();
    const row = page.locator("tbody tr").first();
    expect(await row.innerText()).toMatch(/ops@example\.org\s+report\.accept\s+report:/);
    expect(errors).toEqual([]);
    await close();
  });

  it("lets the operator move an account to a plan, suspend it and invite someone, without JavaScript", async () => {
    const { page, errors, close } = await operatorBrowser(undefined, false);
    /** Clicks a form's button and waits for the page it is answered with. */
    const submit = async (name: string) => {
      const answered = page.waitForEvent("load");
      await page.getByRole("button", { name, exact: true }).click();
      await answered;
    };
    const searched = `${base}/console/accounts?search=ann%40`;
    await page.goto(`${base}/console/accounts`);
    await page.getByRole("searchbox", { name: "Search" }).fill("ann@");
    await submit("Search");
    expect(page.url()).toBe(searched);
    await page.getByLabel("Plan of ann@example.com").selectOption("partner");
    await submit("Save");
    expect(page.url()).toBe(searched);
    await submit("Suspend");
    expect(page.url()).toBe(searched);
    expect(await page.locator("tbody tr").first().innerText()).toMatch(
      /ann@example\.com\s+member\s+partner\s+suspended/,
    );

    await page.getByLabel("Email", { exact: true }).fill("cat@example.net");
    await page.getByLabel("Plan", { exact: true }).selectOption("partner");
    await page.getByLabel("Operator", { exact: true }).check();
    await submit("Invite");
    const link = await page.locator("[data-invite-link]").innerText();
    expect(link).toMatch(new RegExp(`^${base}/invite/`));
    expect(await page.locator("main").innerText()).toContain("It was not mailed");
    expect(errors).toEqual([]);
    await close();
  });
});
