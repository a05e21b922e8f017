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
 * - the script tag's `data-message-*` replace the messages, beside the field and as its
 *   validation message;
 * - typing sends one check, 400 ms after the last keystroke; a newer value aborts the
 *   check in flight, and the older value's answer is never shown;
 * - the same page from an origin the key does not list makes no check (the browser's
 *   request is refused, the key's usage does not move) and submits, and the widget
 *   writes one `console.warn` naming the refusal, however many checks are refused;
 * - an error answer (a 429 of the per-visitor limit) leaves the field valid and submits;
 * - while the service is frozen (SIGSTOP) or after it stopped, the form submits within 3 s,
 *   and within `data-timeout` when the tag sets one.
 *
 * Every wait and bound on time is a quiet machine's, stretched by the machine's pace read
 * before each test (harness/machine-pace.ts).
 *
 * No page asks anything of a host but its own origin and the service.
 */
import { once } from "node:events";
import { createServer } from "node:net";
import type { Browser, BrowserContext, Request as BrowserRequest, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { launchChromium } from "../../harness/chromium.js";
import { type Pace, startPace } from "../../harness/machine-pace.js";
import type { ServiceProcess } from "../../harness/service-process.js";
import { type ServiceWorld, startServiceWorld } from "../../harness/service-world.js";
import { type DemoServer, startDemoServer } from "../../src/demo/demo-server.js";
import { openStore } from "../../src/store/index.js";

const BLOCK_MESSAGE = "Please use a permanent email address; this one cannot be used to sign up.";
const SUBMITS_WITHIN_MS = 3000;

let world: ServiceWorld;
let service: ServiceProcess;
let browser: Browser;
/** The page from the origin the key lists, and from one it does not. */
let listed: DemoServer;
let unlisted: DemoServer;
/** The publishable key the pages use, and the origin it lists. */
let key: { id: string; secret: string };
let listedOrigin: string;
/** Every URL any page asked for. */
const requested: string[] = [];
/** The machine's pace, read before each test. */
let pace: Pace;
beforeEach(() => {
  pace = startPace();
});

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function createPublishableKey(origin: string): Promise<{ id: string; secret: string }> {
  const store = await openStore(world.database.location);
  try {
    await store.plans.createPlan({ name: "widget", quota: 1000, periodDays: 30 });
    const created = await store.keys.createKey({
      plan: "widget",
      now: new Date(),
      publishable: true,
      origins: [origin],
    });
    return { id: created.key.id, secret: created.secret };
  } finally {
    await store.close();
  }
}

/** The checks the key has been counted for this period, read from the database (counts nothing). */
async function keyUsed(): Promise<number> {
  const store = await openStore(world.database.location);
  try {
    const usage = await store.usage.keyUsage(key.id, new Date());
    if (!usage) throw new Error("the widget's key is gone");
    return usage.current.used;
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  world = await startServiceWorld({ network: {} });
  service = world.service;
  browser = await launchChromium();
  const port = await freePort();
  listedOrigin = `http://127.0.0.1:${port}`;
  key = await createPublishableKey(listedOrigin);
  listed = await startDemoServer({ port, serviceUrl: service.url, key: key.secret });
  unlisted = await startDemoServer({ port: 0, serviceUrl: service.url, key: key.secret });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([listed?.close(), unlisted?.close()]);
  await world?.stop();
});

/** Every context a test opened: closed after it even when it failed first, so the service's stop never waits on a page. */
const contexts: BrowserContext[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

interface SignUpPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and page errors. */
  errors: string[];
  /** Console warnings. */
  warnings: string[];
}

/**
 * Opens the demo's sign-up page in a new context. `attributes` go on the widget's script
 * tag as the parser inserts it, before the deferred script runs (an init script; a page
 * fulfilled by a Playwright route would not do: Chromium then counts it as public and
 * refuses it the loopback service, and while a route is set Playwright answers CORS
 * preflights itself).
 */
async function openSignUp(demo: DemoServer, attributes: Record<string, string> = {}): Promise<SignUpPage> {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  const errors: string[] = [];
  const warnings: string[] = [];
  page.on("request", (request) => requested.push(request.url()));
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
    if (message.type() === "warning") warnings.push(message.text());
  });
  if (Object.keys(attributes).length > 0) {
    await page.addInitScript(`new MutationObserver((_, observer) => {
      const script = document.querySelector('script[src$="/widget.js"]');
      if (!script) return;
      for (const [name, value] of Object.entries(${JSON.stringify(attributes)})) script.setAttribute(name, value);
      observer.disconnect();
    }).observe(document, { childList: true, subtree: true });`);
  }
  await page.goto(`${demo.url}/`, { waitUntil: "load" });
  await page.evaluate(`window.results = [];
    document.querySelector("#email").addEventListener("mailrisk:result", (event) => window.results.push(event.detail));`);
  return { page, context, errors, warnings };
}

/** Fills the email field and clicks Sign up; resolves to how long until the answer page, or null if none came. */
async function signUp(page: Page, email: string, waitMs = pace.bound(4000)): Promise<number | null> {
  await page.getByLabel("Email").fill(email);
  const started = performance.now();
  const submitted = page.waitForURL(/\/signed-up$/, { timeout: waitMs }).then(
    () => performance.now() - started,
    () => null,
  );
  await page.getByRole("button", { name: "Sign up" }).click();
  return submitted;
}

const isCheck = (request: BrowserRequest) =>
  request.method() === "POST" && request.url() === `${service.url}/v2/`;

interface CheckWatch {
  /** Every check the page started, in order (a request refused or aborted included). */
  sent: BrowserRequest[];
  /** The most checks in flight at once: started, neither finished nor failed. */
  maxInFlight: number;
}

/** Watches the checks a page sends to the service, as Chromium reports them. */
function watchChecks(page: Page): CheckWatch {
  const watch: CheckWatch = { sent: [], maxInFlight: 0 };
  let inFlight = 0;
  page.on("request", (request) => {
    if (!isCheck(request)) return;
    watch.sent.push(request);
    inFlight += 1;
    watch.maxInFlight = Math.max(watch.maxInFlight, inFlight);
  });
  const settled = (request: BrowserRequest) => {
    if (isCheck(request)) inFlight -= 1;
  };
  page.on("requestfinished", settled);
  page.on("requestfailed", settled);
  return watch;
}

const EMAIL = "#email";
const fieldState = (page: Page) =>
  page.evaluate(`(() => {
    const input = document.querySelector("${EMAIL}");
    return { valid: input.validity.valid, validationMessage: input.validationMessage,
      message: document.querySelector(".mailrisk-message").innerText };
  })()`) as Promise<{ valid: boolean; validationMessage: string; message: string }>;

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
    await suggestion.waitFor({ timeout: pace.bound(3000) });
    expect(await page.locator(".mailrisk-typo").innerText()).toBe("Did you mean someone@gmail.com?");
    await suggestion.click();
    expect(await page.getByLabel("Email").inputValue()).toBe("someone@gmail.com");
    await expect.poll(() => page.evaluate("window.results.length")).toBe(2);
    expect(await page.locator(".mailrisk-message").innerText()).toBe("");
    expect(await page.evaluate(`document.querySelector("#email").validity.valid`)).toBe(true);
    const submitted = page.waitForURL(/\/signed-up$/, { timeout: pace.bound(3000) });
    await page.getByRole("button", { name: "Sign up" }).click();
    await submitted;
    expect(errors).toEqual([]);
    await context.close();
  });

  it("submits a good address, its one check counted against the key", async () => {
    const used = await keyUsed();
    const { page, context, errors, warnings } = await openSignUp(listed);
    const checks = watchChecks(page);
    expect(await signUp(page, "someone@gmail.com")).not.toBeNull();
    expect(warnings).toEqual([]);
    expect(await page.locator("h1").innerText()).toBe("Signed up");
    expect(checks.sent).toHaveLength(1);
    expect((await checks.sent[0]?.response())?.status()).toBe(200);
    expect(await keyUsed()).toBe(used + 1); // what the unlisted origin's case relies on
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows the messages of the script tag's data-message-* attributes", async () => {
    const messages = {
      "data-message-block": "No throwaway addresses here, sorry.",
      "data-message-invalid": "That address takes no mail.",
      "data-message-typo": "Perhaps {suggestion} instead?",
    };
    const { page, context, errors } = await openSignUp(listed, messages);
    const live = page.locator('.mailrisk-message[aria-live="polite"]');

    expect(await signUp(page, "someone@mailinator.com", 2500)).toBeNull();
    await expect.poll(() => live.innerText()).toBe(messages["data-message-block"]);
    expect(await fieldState(page)).toMatchObject({
      valid: false,
      validationMessage: messages["data-message-block"],
    });

    expect(await signUp(page, "someone@does-not-exist.test", 2500)).toBeNull();
    await expect.poll(() => live.innerText()).toBe(messages["data-message-invalid"]);
    expect((await fieldState(page)).validationMessage).toBe(messages["data-message-invalid"]);

    await page.getByLabel("Email").fill("someone@gmial.com");
    await page.getByRole("button", { name: "someone@gmail.com" }).waitFor({ timeout: pace.bound(3000) });
    expect(await live.locator(".mailrisk-typo").innerText()).toBe("Perhaps someone@gmail.com instead?");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("sends one check for a value typed key by key, 400 ms after the last keystroke", async () => {
    const { page, context, errors } = await openSignUp(listed);
    const checks = watchChecks(page);
    const field = page.getByLabel("Email");
    // The last keystroke's time, taken in the page: the test process learns of it late
    // when the machine is busy, which would shorten the wait it measures.
    await field.evaluate((input) =>
      input.addEventListener("input", () => {
        (globalThis as unknown as { lastInputAt: number }).lastInputAt = Date.now();
      }),
    );
    // Three of the prefixes already look like an address: someone@gmail.c, .co, .com.
    await field.pressSequentially("someone@gmail.com", { delay: 40 });
    await expect.poll(() => page.evaluate("window.results.length")).toBeGreaterThan(0);
    await page.waitForTimeout(600); // longer than the debounce: no later check either
    expect(checks.sent.map((request) => request.postDataJSON())).toEqual([{ email: "someone@gmail.com" }]);
    expect(await page.evaluate("window.results.length")).toBe(1);
    const typedAt = (await page.evaluate("window.lastInputAt")) as number;
    // When the browser sent the check, on the same clock (milliseconds since the epoch).
    const sentAt = checks.sent[0]?.timing().startTime ?? 0;
    expect(sentAt - typedAt).toBeGreaterThan(300);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("aborts the check in flight for a newer value, and never shows the older value's answer", async () => {
    const { page, context, errors } = await openSignUp(listed);
    const checks = watchChecks(page);
    // The check of the disposable address is held until the newer one has been answered.
    // (With a route set, Playwright answers the preflight itself; the service still admits the origin.)
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(`${service.url}/v2/`, async (route) => {
      if (route.request().postDataJSON()?.email === "someone@mailinator.com") await released;
      await route.continue().catch(() => {}); // the widget may have aborted it meanwhile
    });
    const field = page.getByLabel("Email");
    await field.fill("someone@mailinator.com");
    await field.dispatchEvent("change"); // checks at once
    await expect.poll(() => checks.sent.length).toBe(1);
    await field.fill("someone@gmail.com");
    await expect.poll(() => page.evaluate("window.results.length")).toBe(1);
    release();
    await page.waitForTimeout(500); // room for the older answer, had it still been awaited
    expect(checks.sent.map((request) => request.postDataJSON().email)).toEqual([
      "someone@mailinator.com",
      "someone@gmail.com",
    ]);
    expect(await page.evaluate("window.results.map((record) => record.domain)")).toEqual(["gmail.com"]);
    expect(await fieldState(page)).toEqual({ valid: true, validationMessage: "", message: "" });
    expect(checks.maxInFlight).toBe(1);
    expect(checks.sent[0]?.failure()?.errorText).toBe("net::ERR_ABORTED");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("makes no check from an origin the key does not list: the request is refused, nothing counted, the form submits", async () => {
    const used = await keyUsed();
    const { page, context } = await openSignUp(unlisted);
    const checks = watchChecks(page);
    expect(await signUp(page, "someone@mailinator.com")).toBeLessThan(pace.bound(SUBMITS_WITHIN_MS));
    expect(await page.locator("h1").innerText()).toBe("Signed up");
    // The widget tried; the browser refused the preflight and never sent the POST.
    expect(checks.sent).toHaveLength(1);
    expect(await checks.sent[0]?.response()).toBeNull();
    expect(checks.sent[0]?.failure()?.errorText).toBe("net::ERR_FAILED");
    expect(await keyUsed()).toBe(used);
    await context.close();
  });

  it("tells the page's developer once why the checks are refused, naming the refusal and the origin", async () => {
    const { page, context, warnings } = await openSignUp(unlisted);
    const checks = watchChecks(page);
    for (const [index, email] of ["one@mailinator.com", "two@mailinator.com", "three@gmail.com"].entries()) {
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Email").dispatchEvent("change");
      await expect.poll(() => checks.sent.length).toBe(index + 1);
      await expect.poll(() => warnings.length).toBe(1);
    }
    await page.waitForTimeout(300);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("origin_not_allowed");
    expect(warnings[0]).toContain(`lists ${unlisted.url}`);
    await context.close();
  });

  it("fails open on an error answer: over the per-visitor limit, the 429 leaves the field valid and it submits", async () => {
    // Spend what is left of this minute's per-visitor limit from 127.0.0.1, the browser's
    // address too. The window began with the file's first check from that address: a lock
    // that ends before the page below could open and check (8 s on a quiet machine,
    // stretched by the pace; Retry-After) is waited out and a fresh window spent, so that
    // the browser's check still meets it on a slow machine.
    const spend = async () => {
      for (let sent = 0; sent < 60; sent++) {
        const response = await fetch(`${service.url}/v2/`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${key.secret}`,
            origin: listedOrigin,
            "content-type": "application/json",
          },
          body: JSON.stringify({ domain: "gmail.com" }),
        });
        await response.arrayBuffer();
        if (response.status === 429) return Number(response.headers.get("retry-after"));
      }
      return undefined;
    };
    let lockedFor = await spend();
    if (lockedFor !== undefined && lockedFor * 1000 < pace.bound(8000)) {
      await new Promise((resolve) => setTimeout(resolve, (lockedFor as number) * 1000 + 100));
      lockedFor = await spend();
    }
    expect(lockedFor).toBeGreaterThan(0);

    const { page, context } = await openSignUp(listed);
    const answered = page.waitForResponse((response) => isCheck(response.request()), {
      timeout: pace.bound(3000),
    });
    await page.getByLabel("Email").fill("someone@mailinator.com");
    expect((await answered).status()).toBe(429);
    await page.waitForTimeout(200); // the widget has read the answer
    expect(await fieldState(page)).toEqual({ valid: true, validationMessage: "", message: "" });
    expect(await page.evaluate("window.results")).toEqual([]);
    const submitted = await signUp(page, "someone@mailinator.com");
    expect(submitted).not.toBeNull();
    expect(submitted).toBeLessThan(pace.bound(1000)); // at once: nothing pending, no time-out waited for
    await context.close();
  });

  it("submits within 3 s while the service is frozen and answers nothing", async () => {
    const { page, context } = await openSignUp(listed);
    const pid = service.child.pid as number;
    process.kill(pid, "SIGSTOP");
    try {
      expect(await signUp(page, "someone@mailinator.com")).toBeLessThan(pace.bound(SUBMITS_WITHIN_MS));
    } finally {
      process.kill(pid, "SIGCONT");
    }
    await context.close();
  });

  it("submits within data-timeout while the service is frozen, when the tag sets one", async () => {
    const { page, context } = await openSignUp(listed, { "data-timeout": "700" });
    const pid = service.child.pid as number;
    process.kill(pid, "SIGSTOP");
    let waited: number | null;
    try {
      waited = await signUp(page, "someone@mailinator.com");
    } finally {
      process.kill(pid, "SIGCONT");
    }
    expect(waited).toBeGreaterThanOrEqual(650); // it did wait for the check…
    expect(waited).toBeLessThan(pace.bound(1500)); // …700 ms, not the default 2000
    await context.close();
  });

  it("submits within 3 s once the service is stopped", async () => {
    const { page, context } = await openSignUp(listed);
    expect(await service.stop()).toBe(0);
    expect(await signUp(page, "someone@mailinator.com")).toBeLessThan(pace.bound(SUBMITS_WITHIN_MS));
    await context.close();
  });

  it("never lets a page ask anything of a host but its own origin and the service", () => {
    const allowed = [listed.url, unlisted.url, service.url].map((origin) => `${origin}/`);
    expect(requested.length).toBeGreaterThan(10);
    expect(requested.filter((url) => !allowed.some((origin) => url.startsWith(origin)))).toEqual([]);
    expect(requested).toContain(`${service.url}/widget.js`);
  });
});
