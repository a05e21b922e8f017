/**
 * An account's own list on the answer path (docs/accounts.md "The account's list"), as
 * `serve` wires it, on SQLite: the account's keys get its block on both checking routes
 * and in bulk, an address at the domain too; a key of another account, a key without
 * one and the public result page get the service's answer; the account's answer is never
 * recorded as the domain's block status (no flip, no webhook event).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../../../harness/dns-server.js";
import { mailZones } from "../../../harness/mail-zones.js";
import { buildApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config.js";
import { addAccountListEntry, removeAccountListEntry } from "../../../src/operator/account-lists.js";
import { CANARY_DOMAINS, createChecker } from "../../../src/service/checking/create-checker.js";
import { openStore, type Store } from "../../../src/store/index.js";

const DOMAIN = "goodshop.com";

let dir: string;
let dns: DnsTestServer;
let store: Store;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mailrisk-account-lists-"));
  dns = await startDnsServer(mailZones([...CANARY_DOMAINS, DOMAIN], "own-server"));
  store = await openStore({ dialect: "sqlite", path: join(dir, "mailrisk.db") });
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

const pendingEvents = async () =>
  (await store.webhooks.deliveryCounts()).reduce((sum, { count }) => sum + count, 0);

it("answers the account's keys by its list, everyone else as before, and records nothing of it", async () => {
  const config = loadConfig({ DNS_SERVERS: dns.address, AGE_LOOKUP: "off", TEST_NAMES: "on" });
  const checker = createChecker({ config, store, recordsFlips: true });
  const app = await buildApp({ store, checker, logger: false, config });
  const account = (name: string) =>
    store.accounts.createAccount({
      email: `${name}@example.org`,
      passwordHash: null,
      role: "member",
      plan: "unlimited",
      now: new Date(),
    });
  const a = await account("a");
  const b = await account("b");
  const own = await store.keys.createKey({ plan: "unlimited", now: new Date() });
  await addAccountListEntry(store, a.account, { domain: DOMAIN, action: "block" }, new Date(), config);
  const check = (secret: string, payload: Record<string, unknown>) =>
    app.inject({ method: "POST", url: "/v2/", headers: { authorization: `Bearer ${secret}` }, payload });
  try {
    const blocked = { block: true, risk: 100, text: "Blocked by the account's list", reason: "Account list" };
    expect((await check(a.secret, { domain: DOMAIN })).json()).toMatchObject(blocked);
    expect((await check(a.secret, { email: `admin@${DOMAIN}` })).json()).toMatchObject(blocked);
    const gateway = await app.inject({
      url: `/?email=ann@${DOMAIN}`,
      headers: { "x-gateway-key": a.secret },
    });
    expect(gateway.json()).toMatchObject(blocked);
    const bulk = await app.inject({
      method: "POST",
      url: "/v2/bulk",
      headers: { authorization: `Bearer ${a.secret}`, "content-type": "application/json" },
      payload: JSON.stringify({ items: [DOMAIN, `ann@${DOMAIN}`] }),
    });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect(bulk.body.match(/"text":"Blocked by the account's list"/g)).toHaveLength(2);

    for (const secret of [b.secret, own.secret]) {
      expect((await check(secret, { domain: DOMAIN })).json()).toMatchObject({
        block: false,
        text: "Looks okay",
      });
    }
    const page = await app.inject({ url: `/domain/${DOMAIN}`, headers: { accept: "text/html" } });
    expect(page.body).toContain("Looks okay");
    expect(page.body).not.toContain("account's list");

    // A change of the list replaces the answers kept with it (the change signal's reload).
    await addAccountListEntry(store, a.account, { domain: DOMAIN, action: "allow" }, new Date(), config);
    await checker.reloadSources?.("account_lists");
    expect((await check(a.secret, { domain: DOMAIN })).json()).toMatchObject({
      block: false,
      reason: "Account list",
    });
    await removeAccountListEntry(store, a.account, DOMAIN, config);
    await checker.reloadSources?.("account_lists");
    const unlisted = (await check(a.secret, { domain: DOMAIN })).json();
    expect(unlisted).toMatchObject({ block: false, text: "Looks okay" });
    expect(unlisted.reason).not.toBe("Account list");

    await checker.drain();
    expect((await store.records.getFacts(DOMAIN))?.block).toBe(false);
    expect(await pendingEvents()).toBe(0);
  } finally {
    await app.close();
    await checker.close();
  }
});
