/**
 * Two instances sharing PostgreSQL, as users run them (`mailrisk serve --workers 1` each),
 * and the CLI run as a third process: an override set with `mailrisk overrides add` holds
 * on both instances within 2 s, with no purge and no restart, and both answer the same
 * `block_status_changed_at` for the flip. Real DNS over the wire to a loopback server.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createKeyIn, createTestDatabase, type TestDatabase } from "../harness/databases.js";
import { type DnsTestServer, startDnsServer } from "../harness/dns-server.js";
import { mailZones } from "../harness/mail-zones.js";
import {
  requestOnNewConnection,
  type ServiceProcess,
  startServiceProcess,
} from "../harness/service-process.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const DOMAIN = "example-shop.com";
const WITHIN_MS = 2000;

let dns: DnsTestServer;
let database: TestDatabase;
let instances: ServiceProcess[] = [];
let secret: string;

beforeAll(async () => {
  dns = await startDnsServer(mailZones([DOMAIN], "own-server"));
  database = await createTestDatabase("postgres");
  const env = {
    DATABASE_URL: database.url,
    DNS_SERVERS: dns.address,
    DNS_TIMEOUT_MS: "1000",
    AGE_LOOKUP: "off",
  };
  instances = [await startServiceProcess({ workers: 1, env })];
  instances.push(await startServiceProcess({ workers: 1, env }));
  secret = await createKeyIn(database.location, "team", 10_000);
}, 90_000);

afterAll(async () => {
  for (const instance of instances) expect(await instance.stop()).toBe(0);
  await dns?.close();
  await database?.drop();
});

async function check(instance: ServiceProcess): Promise<Record<string, unknown>> {
  const { status, text } = await requestOnNewConnection(`${instance.url}/v2/`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}` },
    body: { domain: DOMAIN },
  });
  expect(status).toBe(200);
  return JSON.parse(text);
}

/** `mailrisk <args>` as a process of its own on the shared database; its exit code. */
function cli(...args: string[]): Promise<number | null> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: database.url },
    stdio: "ignore",
  });
  return new Promise((resolve) => child.once("exit", resolve));
}

/** The first answer of `instance` with `block` as expected, and how long after `since` it came; stops at 5 s. */
async function firstAnswer(instance: ServiceProcess, block: boolean, since: number) {
  for (;;) {
    const record = await check(instance);
    const after = Date.now() - since;
    if (record.block === block || after > 5000) return { record, after };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it("takes an override set with the CLI on both instances within 2 s, with one changed time", async () => {
  const before = await Promise.all(instances.map(check));
  expect(before.map((record) => record.block)).toEqual([false, false]);

  expect(await cli("overrides", "add", "deny", DOMAIN, "--note", "chargebacks")).toBe(0);
  const since = Date.now();
  const after = await Promise.all(instances.map((instance) => firstAnswer(instance, true, since)));
  for (const { record, after: took } of after) {
    expect(record).toMatchObject({ block: true, text: "Blocked by the operator" });
    expect(took).toBeLessThan(WITHIN_MS);
  }
  const [first, second] = after.map(({ record }) => record.block_status_changed_at);
  expect(first).toBe(second);
  expect(first).not.toBe(before[0]?.block_status_changed_at);

  expect(await cli("overrides", "remove", DOMAIN)).toBe(0);
  const back = Date.now();
  for (const { record, after: took } of await Promise.all(
    instances.map((instance) => firstAnswer(instance, false, back)),
  )) {
    expect(record).toMatchObject({ block: false, text: "Looks okay" });
    expect(took).toBeLessThan(WITHIN_MS);
  }
}, 60_000);
