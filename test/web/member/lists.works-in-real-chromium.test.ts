/**
 * The account's own list page in real Chromium (docs/accounts.md "The account's list"),
 * without JavaScript of its own: a person logs in, adds a domain with the `Domain` field
 * and the `Allow` choice, sees a refusal beside the field, imports a CSV through the
 * `CSV file` input, removes an entry, pages a longer list with `Next` and finds a domain
 * with `Search`, and is told the import's limit beside the field for a file over it;
 * axe-core finds no violation on the page, with its errors shown or not.
 */
import type { FastifyInstance } from "fastify";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { axeViolations, launchChromium } from "../../../harness/chromium.js";
import { configWith } from "../../../harness/config.js";
import { openTestStore, type TestStore } from "../../../harness/databases.js";
import { testPasswordHash } from "../../../harness/passwords.js";
import { buildApp } from "../../../src/app.js";
import { fakeChecker } from "../../http/helpers.js";

const PASSWORD = "a good long password";

let testStore: TestStore;
let app: FastifyInstance;
let base: string;
let browser: Browser;

beforeAll(async () => {
  [testStore, browser] = await Promise.all([openTestStore("sqlite"), launchChromium()]);
  await testStore.store.accounts.createAccount({
    email: "ann@example.org",
    passwordHash: await testPasswordHash(PASSWORD),
    role: "member",
    plan: "free",
    now: new Date(),
  });
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

it("adds, refuses beside the field, imports, removes, pages and searches, with no axe violation", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const axe = async (when: string) => {
    expect(await axeViolations(page), when).toEqual([]);
  };

  await page.goto(`${base}/login`);
  await page.getByLabel("Email").fill("ann@example.org");
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.waitForURL(`${base}/account`);
  await page.getByRole("link", { name: "Lists" }).click();
  await page.waitForURL(`${base}/account/lists`);
  await axe("the empty list");

  await page.getByLabel("Domain", { exact: true }).fill("Partner.Example.com");
  await page.getByLabel("Allow", { exact: true }).check();
  await page.getByRole("button", { name: "Add" }).click();
  await page.waitForURL(`${base}/account/lists`);
  await expect
    .poll(() => page.locator("tbody tr").first().textContent())
    .toMatch(/^partner\.example\.comAllow/);

  await page.getByLabel("Domain", { exact: true }).fill("not a domain");
  await page.getByRole("button", { name: "Add" }).click();
  await expect.poll(() => page.locator("#f-domain-error").textContent()).toContain("is not a domain");
  expect(await page.getByLabel("Domain", { exact: true }).getAttribute("aria-describedby")).toBe(
    "f-domain-error",
  );
  await axe("a refused domain");

  await page.getByLabel("CSV file").setInputFiles({
    name: "list.csv",
    mimeType: "text/csv",
    buffer: Buffer.from("domain,action\nspam-supplier.example.com,block\n"),
  });
  await page.getByRole("button", { name: "Import" }).click();
  await expect.poll(() => page.getByRole("status").textContent()).toBe("Imported 1 entry.");
  expect(await page.locator("tbody tr").count()).toBe(2);
  expect(await page.getByRole("link", { name: "Export CSV" }).getAttribute("href")).toBe(
    "/account/lists.csv",
  );
  await axe("a list of two");

  await page.getByRole("button", { name: "Remove partner.example.com" }).click();
  await page.waitForURL(`${base}/account/lists`);
  await expect.poll(() => page.locator("tbody tr").count()).toBe(1);

  // 150 more: two pages of 100.
  const more = Array.from({ length: 150 }, (_, n) => `bulk-${String(n).padStart(4, "0")}.example.com,block`);
  await page.getByLabel("CSV file").setInputFiles({
    name: "more.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(more.join("\n")),
  });
  await page.getByRole("button", { name: "Import" }).click();
  await expect.poll(() => page.getByRole("status").textContent()).toBe("Imported 150 entries.");
  expect(await page.locator("tbody tr").count()).toBe(100);
  await axe("the first page of two");
  await page.getByRole("link", { name: "Next" }).click();
  await page.waitForURL(`${base}/account/lists?page=2`);
  expect(await page.locator("tbody tr").count()).toBe(51);
  expect(await page.getByRole("link", { name: "Previous" }).getAttribute("href")).toBe("/account/lists");

  await page.getByLabel("Search", { exact: true }).fill("bulk-0123");
  await page.getByRole("button", { name: "Search" }).click();
  await page.waitForURL(`${base}/account/lists?search=bulk-0123`);
  await expect
    .poll(() => page.locator("tbody tr").first().textContent())
    .toMatch(/^bulk-0123\.example\.comBlock/);
  expect(await page.locator("tbody tr").count()).toBe(1);
  await axe("a search");

  await page.getByLabel("CSV file").setInputFiles({
    name: "huge.csv",
    mimeType: "text/csv",
    buffer: Buffer.alloc(4 * 1024 * 1024, "huge.example.com,block\n"),
  });
  await page.getByRole("button", { name: "Import" }).click();
  await expect
    .poll(() => page.locator("#f-csv-error").textContent())
    .toContain("larger than the import's limit of 3 MiB");
  await axe("an import over the limit");
  expect(errors).toEqual([]);
  await context.close();
}, 60_000);
