/**
 * The account's list jobs in real Chromium (docs/jobs.md "On the account's pages"), against
 * `mailrisk serve` on loopback DNS whose answers take a while: a CSV of 300 rows uploaded
 * on /account/jobs lands on a page whose `<progress>` is not full, and the progress
 * script moves it to its max without a reload; `Download` gives the CSV with every row
 * and the `mr_` columns; the page's own policy lets its script run (no CSP report, no
 * error) and axe-core finds no violation.
 */
import { readFile } from "node:fs/promises";
import { parse } from "csv-parse/sync";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, launchChromium } from "../../../harness/chromium.js";
import { addMailDomain, wholeTreeFixture, type ZoneNames } from "../../../harness/mail-zones.js";
import { type ServiceWorld, startServiceWorld } from "../../../harness/service-world.js";
import { Zones } from "../../../harness/zones.js";
import { inviteAccount } from "../../../src/operator/accounts.js";
import { CLI_ACTOR } from "../../../src/operator/audit.js";
import { CANARY_DOMAINS } from "../../../src/service/checking/create-checker.js";
import { openStore } from "../../../src/store/index.js";

const PASSWORD = "a good long password";
const ROWS = 300;
const DOMAINS = Array.from({ length: 60 }, (_, i) => `shop-${i}.com`);

let world: ServiceWorld;
let browser: Browser;
let inviteUrl: string;

/** Working mail domains whose own names answer after 700 ms: the job takes a few seconds. */
function slowZones(): Zones {
  const names: ZoneNames = {};
  for (const domain of [...CANARY_DOMAINS, ...DOMAINS]) addMailDomain(names, domain, "own-server");
  for (const domain of DOMAINS) names[domain] = { ...names[domain], delay: 700 };
  return new Zones(wholeTreeFixture(names));
}

function contacts(): string {
  const lines = ["name,email"];
  for (let i = 0; i < ROWS; i++) lines.push(`"Person, ${i}",user${i}@${DOMAINS[i % DOMAINS.length]}`);
  return `${lines.join("\r\n")}\r\n`;
}

beforeAll(async () => {
  [world, browser] = await Promise.all([
    startServiceWorld({ zones: slowZones(), env: { SIGNUP: "invite" } }),
    launchChromium(),
  ]);
  const store = await openStore(world.database.location);
  try {
    const links = { signup: "invite" as const, publicUrl: null, signupPlan: "free", mailer: undefined };
    const link = await inviteAccount(store, { email: "ann@example.com" }, links, new Date(), CLI_ACTOR);
    inviteUrl = `${world.service.url}${new URL(link.url, "http://localhost").pathname}`;
  } finally {
    await store.close();
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (world) expect(await world.stop()).toEqual([0]);
});

describe("list jobs in Chromium", () => {
  it("uploads a CSV, moves the progress bar to its max without a reload, and downloads the cleaned CSV", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });

    await page.goto(inviteUrl);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.waitForURL(`${world.service.url}/account`);
    await page.getByRole("link", { name: "Jobs" }).click();
    await page.waitForURL(`${world.service.url}/account/jobs`);

    await page.getByLabel("File").setInputFiles({
      name: "contacts.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(contacts()),
    });
    const landed = page.waitForResponse(
      (response) =>
        response.url() === `${world.service.url}/account/jobs` && response.request().method() === "GET",
    );
    await page.getByRole("button", { name: "Upload" }).click();
    const served = await (await landed).text();
    await page.waitForURL(`${world.service.url}/account/jobs`);
    // The page came with the job not done yet: what follows is the script's work.
    const [, max, value] = /<progress max="(\d+)" value="(\d+)"/.exec(served) ?? [];
    expect(Number(max)).toBe(ROWS);
    expect(Number(value)).toBeLessThan(ROWS);
    let navigations = 0;
    page.on("framenavigated", (frame) => {
      if (frame === page.mainFrame()) navigations++;
    });

    const progress = page.locator("progress").first();
    await expect.poll(() => progress.getAttribute("value"), { timeout: 60_000 }).toBe(String(ROWS));
    expect(await progress.getAttribute("max")).toBe(String(ROWS));
    const row = page.locator("tr[data-job]").first();
    await expect.poll(() => row.getAttribute("data-status")).toBe("done");
    expect(await row.locator('[data-field="status"]').textContent()).toBe("done");
    expect(await page.locator("#jobs-live").textContent()).toMatch(/^List job job_\S+ is done\.$/);
    const download = page.getByRole("link", { name: "Download", exact: true });
    await download.waitFor({ state: "visible" });
    expect(navigations).toBe(0);

    const [file] = await Promise.all([page.waitForEvent("download"), download.click()]);
    expect(file.suggestedFilename()).toBe("contacts.checked.csv");
    const rows = parse(await readFile(await file.path(), "utf8"), { columns: true }) as Record<
      string,
      string
    >[];
    expect(rows).toHaveLength(ROWS);
    expect(rows.map((cells) => cells.email)).toEqual(
      Array.from({ length: ROWS }, (_, i) => `user${i}@${DOMAINS[i % DOMAINS.length]}`),
    );
    expect(Object.keys(rows[0] ?? {})).toEqual(
      expect.arrayContaining(["name", "email", "mr_valid", "mr_block"]),
    );
    expect(rows.every((cells) => cells.mr_valid === "true" && cells.mr_block === "false")).toBe(true);

    expect(await axeViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
