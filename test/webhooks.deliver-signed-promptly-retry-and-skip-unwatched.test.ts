/**
 * Webhooks against a loopback receiver, one server in-process on SQLite with short retry
 * intervals: an override that flips a watched domain is delivered within 10 s, signed; a
 * receiver answering 500 twice gets the same event a third time and it is delivered; a
 * domain not answered within WEBHOOK_WATCH_DAYS raises nothing. The 10 s, and the
 * receiver's time-out that only a silent receiver may trip, are a quiet machine's,
 * stretched by the machine's pace (harness/machine-pace.ts).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../harness/dns-server.js";
import { startPace } from "../harness/machine-pace.js";
import { mailZones } from "../harness/mail-zones.js";
import { mxFacts } from "../harness/sample-facts.js";
import { startWebhookReceiver, type WebhookReceiver } from "../harness/webhook-receiver.js";
import { loadConfig } from "../src/config.js";
import { type RunningServer, startServer } from "../src/server.js";
import { CANARY_DOMAINS } from "../src/service/checking/create-checker.js";
import { verifyWebhook } from "../src/service/webhooks/webhook-signature.js";
import { openStore, type Store } from "../src/store/index.js";

const DOMAINS = ["prompt-shop.com", "retry-shop.com", "watched-shop.com", "redirect-shop.com"];
const UNWATCHED = "forgotten-shop.com";
const SECRET = "s3cret-for-the-test";

let dir: string;
let dns: DnsTestServer;
let receiver: WebhookReceiver;
let server: RunningServer;
let store: Store;
let key: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mailrisk-webhooks-"));
  dns = await startDnsServer(mailZones([...CANARY_DOMAINS, ...DOMAINS, UNWATCHED], "own-server"));
  receiver = await startWebhookReceiver();
  const config = loadConfig({
    TEST_NAMES: "on",
    LIST_SOURCES: "off",
    DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}`,
    HOST: "127.0.0.1",
    PORT: "0",
    DNS_SERVERS: dns.address,
    AGE_LOOKUP: "off",
    WEBHOOK_WATCH_DAYS: "30",
  });
  const stdout = new PassThrough();
  let printed = "";
  stdout.on("data", (chunk) => {
    printed += chunk;
  });
  server = await startServer(config, {
    stdout,
    logger: pino({ level: "silent" }),
    // An answering receiver answers within the time-out however loaded the machine.
    webhookTiming: {
      pollMs: 100,
      firstRetryMs: 300,
      maxRetryMs: 1000,
      timeoutMs: Math.round(startPace().bound(500)),
    },
  });
  key = /\b(mr_\w+)\b/.exec(printed)?.[1] as string;
  // The operator's CLI, as a second connection to the database.
  store = await openStore(config.database);
  await store.webhooks.createWebhook({
    url: receiver.url,
    secret: SECRET,
    events: ["domain.blocked", "domain.unblocked"],
    now: new Date(),
  });
  // Answered 40 days ago and never since: not watched.
  const old = new Date(Date.now() - 40 * 86_400_000);
  await store.records.saveFacts(UNWATCHED, mxFacts(UNWATCHED), old, false);
}, 30_000);

afterAll(async () => {
  await server?.close();
  await store?.close();
  await receiver?.close();
  await dns?.close();
  await rm(dir, { recursive: true, force: true });
});

async function check(domain: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}/v2/`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ domain }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

const about = (domain: string) => receiver.received.filter((r) => r.json.domain === domain);

it("delivers an override's flip of a watched domain within 10 s, signed", async () => {
  const domain = "prompt-shop.com";
  expect((await check(domain)).block).toBe(false);
  const pace = startPace();
  const since = Date.now();
  await store.overrides.setOverride({
    kind: "domain",
    value: domain,
    action: "deny",
    note: null,
    createdAt: new Date(),
  });
  const [delivery] = await receiver
    .waitFor(() => about(domain).length > 0, pace.bound(10_000))
    .then(() => about(domain));
  expect(delivery?.at ?? Infinity).toBeLessThan(since + pace.bound(10_000));
  const { headers, body, json } = delivery as NonNullable<typeof delivery>;
  expect(json).toMatchObject({ type: "domain.blocked", domain, block: true, previous_block: false });
  expect(json.reason).toBe((json.record as { reason: string }).reason);
  expect(headers["mailrisk-event-id"]).toBe(json.id);
  const signature = String(headers["mailrisk-signature"]);
  expect(verifyWebhook(SECRET, body, signature, new Date())).toBe(true);
  expect(verifyWebhook("another secret", body, signature, new Date())).toBe(false);
  expect(verifyWebhook(SECRET, `${body} `, signature, new Date())).toBe(false);
  // Outside the replay window the same request is refused.
  expect(verifyWebhook(SECRET, body, signature, new Date(Date.now() + 600_000))).toBe(false);
  // The next answer sees the flip already recorded: no second event.
  expect((await check(domain)).block).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(about(domain)).toHaveLength(1);
}, 60_000);

it("retries a receiver answering 500 twice and delivers on the third attempt with the same event id", async () => {
  const domain = "retry-shop.com";
  await check(domain);
  receiver.script(domain, [500, 500]);
  await store.overrides.setOverride({
    kind: "domain",
    value: domain,
    action: "deny",
    note: null,
    createdAt: new Date(),
  });
  await receiver.waitFor(() => about(domain).length >= 3, 15_000);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const attempts = about(domain);
  expect(attempts.map((a) => a.status)).toEqual([500, 500, 200]);
  expect(new Set(attempts.map((a) => a.headers["mailrisk-event-id"])).size).toBe(1);
  const [event] = (await store.webhooks.deliveries(null, 10)).filter((d) => d.domain === domain);
  expect(event).toMatchObject({ status: "delivered", nextAttemptAt: null });
  expect(event?.attempts.map((a) => a.statusCode)).toEqual([500, 500, 200]);
}, 30_000);

it("raises nothing for a domain not answered within WEBHOOK_WATCH_DAYS", async () => {
  await check("watched-shop.com");
  for (const value of [UNWATCHED, "watched-shop.com"]) {
    await store.overrides.setOverride({
      kind: "domain",
      value,
      action: "deny",
      note: null,
      createdAt: new Date(),
    });
  }
  await receiver.waitFor(() => about("watched-shop.com").length > 0);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(about(UNWATCHED)).toHaveLength(0);
  expect((await store.webhooks.deliveries(null, 100)).filter((d) => d.domain === UNWATCHED)).toEqual([]);
}, 20_000);

it("follows no redirect and counts a time-out as a failure, then delivers", async () => {
  const domain = "redirect-shop.com";
  await check(domain);
  receiver.script(domain, [302, 0]);
  await store.overrides.setOverride({
    kind: "domain",
    value: domain,
    action: "deny",
    note: null,
    createdAt: new Date(),
  });
  await receiver.waitFor(() => about(domain).some((r) => r.status === 200), 15_000);
  expect(about(domain).map((r) => [r.status, r.path])).toEqual([
    [302, "/hook"],
    [0, "/hook"],
    [200, "/hook"],
  ]);
  // The receiver has answered 200; the deliverer records that attempt once the answer is read.
  const attempts = async () =>
    (await store.webhooks.deliveries(null, 20))
      .find((d) => d.domain === domain)
      ?.attempts.map((a) => [a.statusCode, a.error]);
  await expect.poll(attempts, { timeout: 5000 }).toEqual([
    [302, null],
    [null, "timeout"],
    [200, null],
  ]);
}, 30_000);
