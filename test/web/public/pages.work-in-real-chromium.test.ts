/**
 * The pages in real Chromium (docs/api.md "Result pages"), against the whole service on loopback:
 * the app listening on 127.0.0.1, checking through the loopback DNS server (engine
 * zones), loopback RDAP and WHOIS, and a temporary SQLite store. Screenshots at desktop
 * (1280 px) and phone (375 px) width land in test-artifacts/pages/ for a person to look at.
 */

import { mkdir } from "node:fs/promises";
import type { FastifyInstance } from "fastify";
import type { Browser, Page } from "playwright-core";
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

const ARTIFACTS = new URL("../../test-artifacts/pages/", import.meta.url);

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 740 };
/** A name that does not exist, long enough to test wrapping on a phone. */
const LONG_NAME =
  "a-rather-long-label-that-nobody-registered.another-long-label-for-wrapping-checks.does-not-exist.test";

let network: LoopbackNetwork;
let testStore: TestStore;
let checker: Checker;
let app: FastifyInstance;
let base: string;
let browser: Browser;
/** Every URL any page asked for, across the file. */
const requested: string[] = [];

beforeAll(async () => {
  [network, browser] = await Promise.all([
    startLoopbackNetwork({
      rdap: (domain) =>
        domain === "gmail.com" ? { status: 200, body: fixture("rdap/registered.json") } : { status: 404 },
    }),
    launchChromium(),
  ]);
  testStore = await openTestStore("sqlite");
  const config = loadConfig({ ...network.env, DATABASE_URL: testStore.database.url, LIST_SOURCES: "off" });
  checker = createChecker({ config, store: testStore.store });
  app = await buildApp({ store: testStore.store, checker, logger: false, config: configWith() });
  base = await app.listen({ host: "127.0.0.1", port: 0 });
  await testStore.store.recent.addRecent(
    ["posteo.de", "mailinator.com", "gmail.com", "google-hosted.test"].map((domain, i) => ({
      domain,
      checkedAt: new Date(Date.UTC(2025, 0, 1, 0, i)),
    })),
  );
  await mkdir(ARTIFACTS, { recursive: true });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await checker?.drain();
  await testStore?.cleanup();
  await network?.close();
});

interface OpenedPage {
  page: Page;
  /** Script errors, dialogs and console errors (a CSP violation is one). */
  errors: string[];
  close(): Promise<void>;
}

async function openPage(viewport: typeof DESKTOP): Promise<OpenedPage> {
  const phone = viewport.width < 600;
  const context = await browser.newContext({ viewport, isMobile: phone, hasTouch: phone });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("request", (request) => requested.push(request.url()));
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    // Chromium logs a page answered with 4xx as an error; the tests check those statuses themselves.
    const status = /^Failed to load resource: the server responded with a status of 4\d\d/;
    if (message.type() === "error" && !status.test(message.text())) errors.push(message.text());
  });
  page.on("dialog", (dialog) => {
    errors.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { page, errors, close: () => context.close() };
}

/** The whole page, and on a phone also its first screen (what is seen without scrolling). */
async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: new URL(`${name}.png`, ARTIFACTS).pathname, fullPage: true });
  if ((page.viewportSize()?.width ?? 0) < 600) {
    await page.screenshot({ path: new URL(`${name}-first-screen.png`, ARTIFACTS).pathname });
  }
}

// Evaluated in the page as strings: this project's TypeScript has no DOM types.
const horizontalOverflow = (page: Page) =>
  page.evaluate(
    "document.documentElement.scrollWidth - document.documentElement.clientWidth",
  ) as Promise<number>;
const pwned = (page: Page) => page.evaluate("window.pwned");
describe("in Chromium", () => {
  it("shows a domain's whole verdict at desktop and phone width, with no horizontal scroll on the phone", async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const size = viewport === DESKTOP ? "desktop" : "phone";
      const { page, errors, close } = await openPage(viewport);
      const allowed = await page.goto(`${base}/domain/gmail.com`);
      expect(allowed?.status()).toBe(200);
      expect(await page.title()).toBe("gmail.com: Allow, risk 0/100 — mailrisk");
      await expect.poll(() => page.locator(".badge").textContent()).toBe("Allow");
      const text = await page.locator("main").innerText();
      for (const shown of [
        "Public free provider",
        "0 / 100",
        "LOW",
        "gmail-smtp-in.l.google.com",
        "192.0.2.5",
        "Gmail",
        "X-Gateway-Key: YOUR_API_KEY",
        "Authorization: Bearer YOUR_API_KEY",
        "mailinator.com",
      ]) {
        expect(text, shown).toContain(shown);
      }
      expect(await page.locator('a[href="/domain/posteo.de"]').count()).toBe(1);
      await screenshot(page, `domain-allow-${size}`);

      const blocked = await page.goto(`${base}/domain/mailinator.com`);
      expect(blocked?.status()).toBe(200);
      expect(await page.locator(".badge").textContent()).toBe("Block");
      expect(await page.locator("main").innerText()).toMatch(/95 \/ 100\s*HIGH/);
      await screenshot(page, `domain-block-${size}`);

      const missing = await page.goto(`${base}/domain/${LONG_NAME}`);
      expect(missing?.status()).toBe(404);
      expect(await page.locator("main").innerText()).toContain("This domain does not exist");
      await screenshot(page, `domain-nxdomain-${size}`);
      if (viewport === PHONE) expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      expect(errors).toEqual([]);
      await close();
    }
  });

  it("leads from the search form on the home page to the domain's page, keeping only the domain", async () => {
    for (const viewport of [PHONE, DESKTOP]) {
      const size = viewport === DESKTOP ? "desktop" : "phone";
      const { page, errors, close } = await openPage(viewport);
      await page.goto(base, { waitUntil: "load" });
      expect(await page.title()).toBe("mailrisk — email and domain risk check");
      if (viewport === PHONE) expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `home-${size}`);
      await page.getByLabel("Email address or domain").fill("Jane.Doe@Posteo.de");
      await Promise.all([
        page.waitForURL(`${base}/domain/posteo.de`),
        page.getByRole("button", { name: "Check" }).click(),
      ]);
      expect(await page.locator("h1").textContent()).toBe("posteo.de");
      if (viewport === PHONE) expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      expect(requested.filter((url) => /jane/i.test(url))).toEqual([]);
      expect(errors).toEqual([]);
      await close();
    }
  });

  it("runs no script from a hostile domain in the URL or the search form", async () => {
    const { page, errors, close } = await openPage(PHONE);
    for (const hostile of [
      "<script>window.pwned=1</script>",
      '"><img src=x onerror="window.pwned=2">.example',
      "<svg onload=window.pwned=3>.test",
    ]) {
      const response = await page.goto(`${base}/domain/${encodeURIComponent(hostile)}`);
      expect(response?.status(), hostile).toBe(400);
      expect(await pwned(page)).toBeUndefined();
      expect(await page.locator("main").innerText()).toContain("400 Bad Request");
    }
    await screenshot(page, "error-400-phone");
    await page.getByLabel("Email address or domain").fill("<img src=x onerror=window.pwned=4>");
    await page.getByRole("button", { name: "Check" }).click();
    await page.waitForLoadState("load");
    expect(await pwned(page)).toBeUndefined();
    expect(errors).toEqual([]);
    await close();
  });

  it("has no serious or critical accessibility problems (axe-core)", async () => {
    const { page, close } = await openPage(DESKTOP);
    for (const path of ["/", "/domain/gmail.com", "/domain/mailinator.com", "/domain/bad%20name"]) {
      await page.goto(`${base}${path}`);
      const violations = await axeViolations(page);
      expect(
        violations.filter((v) => v.impact === "serious" || v.impact === "critical"),
        `${path}: ${JSON.stringify(violations)}`,
      ).toEqual([]);
    }
    await close();
  });

  it("never lets a page ask anything of another server", () => {
    expect(requested.length).toBeGreaterThan(10);
    expect(requested.filter((url) => !url.startsWith(`${base}/`) && !url.startsWith("data:"))).toEqual([]);
  });
});
