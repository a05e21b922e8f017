/**
 * The widget on a sign-up page in real Chromium (docs/clients.md), the page served by
 * `mailrisk demo`'s server from other loopback origins than the service's, the service
 * as users run it (`mailrisk serve --workers 1`, DNS and registries on loopback) with a
 * publishable key that lists one of those origins:
 *
 * - a disposable address stops the submit with the message, beside the field and as
 *   the field's validation message, and fires `mailrisk:result`;
 * - a typo shows its suggestion, and clicking it fixes the field;
 * - a good address submits;
 * - while the service is frozen (SIGSTOP) or after it stopped, the form submits within 3 s;
 * - the same page from an origin the key does not list makes no check and submits.
 *
 * No page asks anything of a host but its own origin and the service.
 */
import { once } from "node:events";
import { createServer } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../harness/chromium.js";
import type { ServiceProcess } from "../../harness/service-process.js";
import { type ServiceWorld, startServiceWorld } from "../../harness/service-world.js";
import { type DemoServer, startDemoServer } from "../../src/cli/demo.js";
import { openStore } from "../../src/store/index.js";

const BLOCK_MESSAGE = "Please use a permanent email address; this one cannot be used to sign up.";
const SUBMITS_WITHIN_MS = 3000;

let world: ServiceWorld;
let service: ServiceProcess;
let browser: Browser;
/** The page from the origin the key lists, and from one it does not. */
let listed: DemoServer;
let unlisted: DemoServer;
/** Every URL any page asked for. */
const requested: string[] = [];

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function createPublishableKey(origin: string): Promise<string> {
  const store = await openStore(world.database.location);
  try {
    await store.plans.createPlan({ name: "widget", quota: 1000, periodDays: 30 });
    return (
      await store.keys.createKey({ plan: "widget", now: new Date(), publishable: true, origins: [origin] })
    ).secret;
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  world = await startServiceWorld({ network: {} });
  service = world.service;
  browser = await launchChromium();
  const port = await freePort();
  const key = await createPublishableKey(`http://127.0.0.1:${port}`);
  listed = await startDemoServer({ port, serviceUrl: service.url, key });
  unlisted = await startDemoServer({ port: 0, serviceUrl: service.url, key });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([listed?.close(), unlisted?.close()]);
  await world?.stop();
});

interface SignUpPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and page errors. */
  errors: string[];
}

async function openSignUp(demo: DemoServer): Promise<SignUpPage> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("request", (request) => requested.push(request.url()));
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  await page.goto(`${demo.url}/`, { waitUntil: "load" });
  await page.evaluate(`window.results = [];
    document.querySelector("#email").addEventListener("mailrisk:result", (event) => window.results.push(event.detail));`);
  return { page, context, errors };
}

/** Fills the email field and clicks Sign up; resolves to how long until the answer page, or null if none came. */
async function signUp(page: Page, email: string, waitMs = 4000): Promise<number | null> {
  await page.getByLabel("Email").fill(email);
  const started = performance.now();
  const submitted = page.waitForURL(/\/signed-up$/, { timeout: waitMs }).then(
    () => performance.now() - started,
    () => null,
  );
  await page.getByRole("button", { name: "Sign up" }).click();
  return submitted;
}

const postChecks = () => (service.output().match(/"method":"POST","url":"\/v2\/"/g) ?? []).length;

describe("the widget in Chromium", () => {
  it("stops the submit of a disposable address with the message beside the field", async () => {
    const { page, context, errors } = await openSignUp(listed);
    expect(await signUp(page, "someone@mailinator.com", 2500)).toBeNull();
    expect(page.url()).toBe(`${listed.url}/`);
    await expect.poll(() => page.locator(".mailrisk-message").innerText()).toBe(BLOCK_MESSAGE);
    expect(await page.locator(".mailrisk-message").getAttribute("aria-live")).toBe("polite");
    expect(await page.evaluate(`document.querySelector("#email").validationMessage`)).toBe(BLOCK_MESSAGE);
    expect(await page.getByLabel("Email").getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel("Email").getAttribute("aria-describedby")).toBe("mailrisk-message-1");
    const results = (await page.evaluate("window.results")) as { domain: string; block: boolean }[];
    expect(results).toMatchObject([{ domain: "mailinator.com", block: true }]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows a typo's suggestion, and clicking it fixes the field, which then submits", async () => {
    const { page, context, errors } = await openSignUp(listed);
    await page.getByLabel("Email").fill("someone@gmial.com");
    const suggestion = page.getByRole("button", { name: "someone@gmail.com" });
    await suggestion.waitFor({ timeout: 3000 });
    expect(await page.locator(".mailrisk-typo").innerText()).toBe("Did you mean someone@gmail.com?");
    await suggestion.click();
    expect(await page.getByLabel("Email").inputValue()).toBe("someone@gmail.com");
    await expect.poll(() => page.evaluate("window.results.length")).toBe(2);
    expect(await page.locator(".mailrisk-message").innerText()).toBe("");
    expect(await page.evaluate(`document.querySelector("#email").validity.valid`)).toBe(true);
    const submitted = page.waitForURL(/\/signed-up$/, { timeout: 3000 });
    await page.getByRole("button", { name: "Sign up" }).click();
    await submitted;
    expect(errors).toEqual([]);
    await context.close();
  });

  it("submits a good address", async () => {
    const { page, context, errors } = await openSignUp(listed);
    expect(await signUp(page, "someone@gmail.com")).not.toBeNull();
    expect(await page.locator("h1").innerText()).toBe("Signed up");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("makes no check from an origin the key does not list, and the form submits", async () => {
    const before = postChecks();
    expect(before).toBeGreaterThan(0); // the checks of the listed origin's pages are in the log
    const { page, context } = await openSignUp(unlisted);
    expect(await signUp(page, "someone@mailinator.com")).toBeLessThan(SUBMITS_WITHIN_MS);
    expect(await page.locator("h1").innerText()).toBe("Signed up");
    expect(await page.evaluate("window.results")).toBeUndefined(); // a new page: the old one's listener is gone
    expect(postChecks()).toBe(before);
    await context.close();
  });

  it("submits within 3 s while the service is frozen and answers nothing", async () => {
    const { page, context } = await openSignUp(listed);
    const pid = service.child.pid as number;
    process.kill(pid, "SIGSTOP");
    try {
      expect(await signUp(page, "someone@mailinator.com")).toBeLessThan(SUBMITS_WITHIN_MS);
    } finally {
      process.kill(pid, "SIGCONT");
    }
    await context.close();
  });

  it("submits within 3 s once the service is stopped", async () => {
    const { page, context } = await openSignUp(listed);
    expect(await service.stop()).toBe(0);
    expect(await signUp(page, "someone@mailinator.com")).toBeLessThan(SUBMITS_WITHIN_MS);
    await context.close();
  });

  it("never lets a page ask anything of a host but its own origin and the service", () => {
    const allowed = [listed.url, unlisted.url, service.url].map((origin) => `${origin}/`);
    expect(requested.length).toBeGreaterThan(10);
    expect(requested.filter((url) => !allowed.some((origin) => url.startsWith(origin)))).toEqual([]);
    expect(requested).toContain(`${service.url}/widget.js`);
  });
});
