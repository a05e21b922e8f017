/**
 * Reading writes nothing (docs/webhooks.md, "Which answers record a flip"), on SQLite: a
 * domain whose stored block status is no longer today's answer keeps it through
 * `mailrisk check` and a result page; the next answer to an API caller records the flip,
 * with its webhook event.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestCli } from "../../../harness/cli-context.js";
import { type DnsTestServer, startDnsServer } from "../../../harness/dns-server.js";
import { mailZones } from "../../../harness/mail-zones.js";
import { buildApp } from "../../../src/app.js";
import { run as runCheck } from "../../../src/cli/check-command.js";
import { loadConfig } from "../../../src/config.js";
import { CANARY_DOMAINS, createChecker } from "../../../src/service/checking/create-checker.js";
import { openStore, type Store } from "../../../src/store/index.js";

const DOMAIN = "goodshop.com";

let dir: string;
let url: string;
let dns: DnsTestServer;
let store: Store;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mailrisk-reads-"));
  url = `sqlite:${join(dir, "mailrisk.db")}`;
  dns = await startDnsServer(mailZones([...CANARY_DOMAINS, DOMAIN], "own-server"));
  store = await openStore(loadConfig({ DATABASE_URL: url }).database);
  await store.migrate();
  await store.webhooks.createWebhook({
    url: "http://127.0.0.1:9/hook",
    secret: "s3cret-for-the-test",
    events: ["domain.blocked", "domain.unblocked"],
    now: new Date(),
  });
});

afterAll(async () => {
  await store?.close();
  await dns?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The server's checker and app, as `serve` wires them. */
async function startApp() {
  const config = loadConfig({
    DNS_SERVERS: dns.address,
    AGE_LOOKUP: "off",
    DATABASE_URL: url,
    TEST_NAMES: "on",
  });
  const checker = createChecker({ config, store, recordsFlips: true });
  const app = await buildApp({ store, checker, logger: false, config });
  return {
    app,
    close: async () => {
      await app.close();
      await checker.drain();
    },
  };
}

const pendingEvents = async () =>
  (await store.webhooks.deliveryCounts()).reduce((sum, { count }) => sum + count, 0);

it("keeps a stale block status through a CLI check and a page view; an API answer records the flip", async () => {
  const { secret } = await store.keys.createKey({ plan: "unlimited", now: new Date() });
  const bearer = { authorization: `Bearer ${secret}` };
  const first = await startApp();
  const answered = await first.app.inject({
    method: "POST",
    url: "/v2/",
    headers: bearer,
    payload: { domain: DOMAIN },
  });
  expect(answered.json()).toMatchObject({ block: false });
  await first.close();
  // Answered blocked under an older policy: today's answer differs from the stored status.
  const blockedAt = new Date(Date.now() - 60_000);
  await store.records.noteBlock(DOMAIN, true, blockedAt);
  const events = await pendingEvents();

  const cli = createTestCli(url, "", { DNS_SERVERS: dns.address, AGE_LOOKUP: "off" });
  expect(await runCheck(["--json", DOMAIN], cli.ctx)).toBe(0);
  expect(JSON.parse(cli.stdout())).toMatchObject({ block: false });
  expect(await store.records.getFacts(DOMAIN)).toMatchObject({ block: true, changedAt: blockedAt });

  const server = await startApp();
  const page = await server.app.inject({ url: `/domain/${DOMAIN}`, headers: { accept: "text/html" } });
  expect(page.statusCode).toBe(200);
  expect(await store.records.getFacts(DOMAIN)).toMatchObject({ block: true, changedAt: blockedAt });
  expect(await pendingEvents()).toBe(events);

  const api = await server.app.inject({
    method: "POST",
    url: "/v2/",
    headers: bearer,
    payload: { domain: DOMAIN },
  });
  expect(api.json()).toMatchObject({ block: false });
  expect(await store.records.getFacts(DOMAIN)).toMatchObject({ block: false });
  expect(await pendingEvents()).toBe(events + 1);
  await server.close();
}, 30_000);
