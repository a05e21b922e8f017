/**
 * The worst moment for a PostgreSQL connection to die (issue #14's loaded runs: the usage
 * row one or a batch of five above the 200 answers): after the statement that counts a
 * request has committed, before the service hears so. A loopback proxy in front of the
 * database (harness/postgres-cutter.ts) cuts the connection right there, every time: the
 * request is answered 503 `database_unavailable`, and the units its count wrote are given
 * back (docs/http.md "When the database dies mid-request"), so the usage row counts
 * exactly the 200 answers. The same for a refund whose answer is lost: given once.
 */
import { PassThrough } from "node:stream";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { createTestDatabase } from "../../harness/databases.js";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { mailZones } from "../../harness/mail-zones.js";
import { startPostgresCutter } from "../../harness/postgres-cutter.js";
import { loadConfig } from "../../src/config.js";
import { startServer } from "../../src/server.js";
import { CANARY_DOMAINS } from "../../src/service/checking/create-checker.js";
import { openStore } from "../../src/store/index.js";

const DOMAIN = "example-shop.com";

let dns: DnsTestServer;
beforeAll(async () => {
  dns = await startDnsServer(mailZones([...CANARY_DOMAINS, DOMAIN], "own-server"));
});
afterAll(() => dns.close());

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The service on a fresh PostgreSQL database reached through the cutter; a key of an ample plan. */
async function startService() {
  const database = await createTestDatabase("postgres");
  cleanups.push(() => database.drop());
  const direct = (database.location as { connectionString: string }).connectionString;
  const cutter = await startPostgresCutter(direct);
  cleanups.push(() => cutter.close());
  const config = loadConfig({
    TEST_NAMES: "on",
    LIST_SOURCES: "off",
    DATABASE_URL: cutter.connectionString,
    HOST: "127.0.0.1",
    PORT: "0",
    DNS_SERVERS: dns.address,
    DNS_TIMEOUT_MS: "1000",
    AGE_LOOKUP: "off",
  });
  const server = await startServer(config, { stdout: new PassThrough(), logger: pino({ level: "silent" }) });
  cleanups.push(() => server.close());
  // Straight to the database, never cut: it reads what the service wrote.
  const admin = await openStore(database.location, { onIdleError: () => {} });
  cleanups.push(() => admin.close());
  await admin.plans.createPlan({ name: "ample", quota: 1_000_000, periodDays: 30 });
  const { key, secret } = await admin.keys.createKey({ plan: "ample", now: new Date() });
  const used = async () => (await admin.usage.keyUsage(key.id, new Date()))?.current.used ?? -1;
  const check = async (index: number) => {
    const response =
      index % 2 === 0
        ? await fetch(`${server.url}/?domain=${DOMAIN}`, { headers: { "x-gateway-key": secret } })
        : await fetch(`${server.url}/v2/`, {
            method: "POST",
            headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
            body: JSON.stringify({ email: `someone@${DOMAIN}` }),
          });
    const body = await response.text();
    return {
      status: response.status,
      code: response.status === 200 ? null : (JSON.parse(body) as { code?: string }).code,
    };
  };
  return { cutter, admin, key, used, check };
}

/** The statement that counts requests: the upsert into a key's usage row. */
const COUNT = /insert into "usage"/;

it("answers 503 and charges nothing when the connection dies just after the count committed, on either route", async () => {
  const service = await startService();
  for (let index = 0; index < 2; index++) {
    const cut = service.cutter.cutAfter(COUNT);
    expect(await service.check(index)).toEqual({ status: 503, code: "database_unavailable" });
    await cut;
    expect(await service.used()).toBe(0);
  }
  // Then served and counted as ever, on both routes (the second time from memory: the fast path).
  for (let index = 0; index < 4; index++) expect((await service.check(index)).status).toBe(200);
  expect(await service.used()).toBe(4);
  // The fast path's count cut off after its commit: nothing stays counted for that try.
  const cut = service.cutter.cutAfter(COUNT);
  const answer = await service.check(0);
  await cut;
  expect(await service.used()).toBe(answer.status === 200 ? 5 : 4);
}, 20_000);
