/**
 * The desk's traffic charts (docs/console.md "Traffic") in real Chromium, CSP on, on
 * SQLite and PostgreSQL: after a known mix of checks through the API, bulk and a result
 * page, `/console` shows an SVG image per chart, named and described, a bar per day in
 * the daily ones with that day's figures, a table of the same figures, no outside asset;
 * axe-core finds nothing, on a phone nothing scrolls sideways, and text from outside (a
 * key's name) stays text.
 */
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { axeViolations, launchChromium } from "../../../harness/chromium.js";
import { DATABASE_KINDS, type DatabaseKind } from "../../../harness/databases.js";
import { testOperatorAccess } from "../../../harness/operator-access.js";
import { sampleRecord } from "../../../harness/sample-record.js";
import { fakeChecker, type HttpFixture, openHttpFixture } from "../../http/helpers.js";

let fixture: HttpFixture;
let browser: Browser;
let base: string;

/** Answers by name: mailinator.com disposable, parked.example parked, the rest allowed. */
const checker = fakeChecker((input) => {
  const domain = input.domain;
  if (domain === "mailinator.com")
    return {
      record: sampleRecord({ domain, block: true, reason: "Disposable", disposable_provider: domain }),
      cache: "hit",
    };
  if (domain === "parked.example")
    return { record: sampleRecord({ domain, block: true, reason: "Parked" }), cache: "hit" };
  return { record: sampleRecord({ domain, block: false }), cache: "hit" };
});

beforeAll(async () => {
  browser = await launchChromium();
}, 30_000);

afterAll(async () => {
  await browser?.close();
});

/** The app on a database of `kind`, after the mix of checks, listening on loopback. */
async function openWithTraffic(kind: DatabaseKind): Promise<void> {
  fixture = await openHttpFixture({ kind, operatorAccess: testOperatorAccess, checker });
  await fixture.store.plans.createPlan({ name: "team", quota: 1000, periodDays: 30 });
  const { secret } = await fixture.store.keys.createKey({
    plan: "team",
    name: "<b>shop</b>",
    now: fixture.clock.now(),
  });
  const auth = { authorization: `Bearer ${secret}` };
  for (const domain of ["shop.example", "mailinator.com", "parked.example"]) {
    const answer = await fixture.app.inject({
      method: "POST",
      url: "/v2/",
      headers: auth,
      payload: { domain },
    });
    expect(answer.statusCode).toBe(200);
  }
  const bulk = await fixture.app.inject({
    method: "POST",
    url: "/v2/bulk",
    headers: auth,
    payload: { items: ["shop.example", "mailinator.com"] },
  });
  expect(bulk.statusCode).toBe(200);
  expect((await fixture.app.inject({ url: "/domain/parked.example" })).statusCode).toBe(200);
  await fixture.store.usage.flushDailyUsage();
  base = await fixture.app.listen({ host: "127.0.0.1", port: 0 });
}

async function operatorPage(viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport });
  await context.addCookies([{ name: "operator", value: "ops%40example.org", url: base }]);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  const requests: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  return { page, errors, requests, close: () => context.close() };
}

describe.each(DATABASE_KINDS)("the desk's traffic charts on %s", (kind) => {
  beforeEach(() => openWithTraffic(kind), 30_000);
  afterEach(() => fixture?.close());

  it("show an SVG per chart with a bar per day, the day's figures, and tables of the same", async () => {
    const { page, errors, requests, close } = await operatorPage();
    expect((await page.goto(`${base}/console`))?.status()).toBe(200);
    const today = fixture.clock.now().toISOString().slice(0, 10);
    for (const [id, name, total] of [
      ["chart-checks", "Checks per day by surface", 6],
      ["chart-blocks", "Blocks per day by reason", 4],
    ] as const) {
      const chart = page.locator(`svg#${id}`);
      expect(await chart.getAttribute("role")).toBe("img");
      expect(await page.getByRole("img", { name }).count()).toBe(1);
      expect(await chart.locator("g.bar").count()).toBe(30);
      expect(await chart.locator(`g.bar[data-day="${today}"]`).getAttribute("data-total")).toBe(
        String(total),
      );
      expect(await chart.locator("desc").textContent()).toContain("the scale goes from 0 to");
    }
    const todayBar = page.locator(`#chart-checks g.bar[data-day="${today}"] title`);
    expect(await todayBar.textContent()).toBe(`${today}: 6 checks (API 3, Bulk 2, Result pages 1)`);
    expect(await page.locator(`#chart-blocks g.bar[data-day="${today}"] title`).textContent()).toBe(
      `${today}: 4 blocks (Disposable 2, Parked 2)`,
    );
    // One SVG per chart, each an image; the accounts' list is empty and says so instead.
    expect(await page.locator("main svg").count()).toBe(5);
    expect(await page.locator('main svg[role="img"]').count()).toBe(5);
    for (const id of ["chart-providers", "chart-domains", "chart-keys"]) {
      expect(await page.locator(`svg#${id}[role="img"]`).count(), id).toBe(1);
    }
    expect(await page.locator("#chart-domains g.bar title").allTextContents()).toEqual([
      "mailinator.com: 2 blocks",
      "parked.example: 2 blocks",
    ]);
    expect(await page.locator("#chart-keys g.bar title").allTextContents()).toEqual([
      expect.stringMatching(/^<b>shop<\/b> \(.+…\): 5 units$/),
    ]);
    expect(await page.locator("main").innerText()).toContain(
      "Accounts that used the most: none in the last 30 days.",
    );
    // The table under the checks' chart holds today's row.
    await page.getByText("Checks per day by surface as a table").click();
    const row = page.locator("tr", { has: page.locator(`th:text-is("${today}")`) }).first();
    expect(await row.locator("td").allTextContents()).toEqual(["3", "2", "0", "1", "6"]);

    expect(await axeViolations(page)).toEqual([]);
    expect(requests.every((url) => url.startsWith(base))).toBe(true);
    expect(errors).toEqual([]);
    if (process.env.CHARTS_SCREENSHOT)
      await page.screenshot({ path: process.env.CHARTS_SCREENSHOT, fullPage: true });
    await close();

    const phone = await operatorPage({ width: 375, height: 740 });
    await phone.page.goto(`${base}/console`);
    expect(
      await phone.page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth",
      ),
    ).toBe(0);
    await phone.close();
  });
});
