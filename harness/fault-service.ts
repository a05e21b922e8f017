/**
 * The real service for the database-faults tests (test/http/database-faults.*):
 * `startServer` (real store, real checker, DNS over the wire to a loopback server) on a
 * test database, a key of a plan no test's traffic can use up (a 429 is never expected),
 * a second store straight to the database to read the key's usage, and one checking
 * request that alternates the two routes.
 */
import { PassThrough } from "node:stream";
import { pino } from "pino";
import { loadConfig } from "../src/config.js";
import { type RunningServer, startServer } from "../src/server.js";
import { openStore, type Store } from "../src/store/index.js";
import type { TestDatabase } from "./databases.js";
import type { DnsTestServer } from "./dns-server.js";

/** The domain every request checks: the DNS server must answer for it. */
export const FAULTS_DOMAIN = "example-shop.com";

export interface FaultService {
  server: RunningServer;
  /** A second store on the same database, to create the key and read its usage. */
  admin: Store;
  secret: string;
  keyId: string;
  /** What the usage row of the key says now. */
  used(): Promise<number>;
  /** One checking request, `GET /` for an even `index`, `POST /v2/` for an odd one: the status and what matters of a problem. */
  check(
    index: number,
  ): Promise<{ status: number; retryAfter: string | null; code: string | null | undefined }>;
}

/**
 * Starts the service on `database` (through `databaseUrl` when given: a proxy in front
 * of it); what it starts is pushed to `cleanups`, to be undone in reverse order.
 */
export async function startFaultService(options: {
  database: TestDatabase;
  databaseUrl?: string;
  dns: DnsTestServer;
  cleanups: (() => Promise<unknown>)[];
}): Promise<FaultService> {
  const { database, dns, cleanups } = options;
  const config = loadConfig({
    TEST_NAMES: "on",
    LIST_SOURCES: "off",
    DATABASE_URL: options.databaseUrl ?? database.url,
    HOST: "127.0.0.1",
    PORT: "0",
    DNS_SERVERS: dns.address,
    DNS_TIMEOUT_MS: "1000",
    AGE_LOOKUP: "off",
  });
  const server = await startServer(config, { stdout: new PassThrough(), logger: pino({ level: "silent" }) });
  cleanups.push(() => server.close());
  // Its pooled PostgreSQL connections may be cut too; the pool replaces them.
  const admin = await openStore(database.location, { onIdleError: () => {} });
  cleanups.push(() => admin.close());
  await admin.plans.createPlan({ name: "ample", quota: 1_000_000, periodDays: 30 });
  const { key, secret } = await admin.keys.createKey({ plan: "ample", now: new Date() });
  const check = async (index: number) => {
    const response =
      index % 2 === 0
        ? await fetch(`${server.url}/?domain=${FAULTS_DOMAIN}`, { headers: { "x-gateway-key": secret } })
        : await fetch(`${server.url}/v2/`, {
            method: "POST",
            headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
            body: JSON.stringify({ email: `someone@${FAULTS_DOMAIN}` }),
          });
    const body = await response.text();
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      code: response.status === 200 ? null : (JSON.parse(body) as { code?: string }).code,
    };
  };
  return {
    server,
    admin,
    secret,
    keyId: key.id,
    used: async () => (await admin.usage.keyUsage(key.id, new Date()))?.current.used ?? -1,
    check,
  };
}
