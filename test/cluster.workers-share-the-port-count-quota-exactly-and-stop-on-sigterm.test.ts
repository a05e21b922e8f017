/**
 * `mailrisk serve --workers 2` as users run it (a child process, real DNS over the wire
 * to a loopback server, a real database): the primary makes the first key once, both
 * workers serve one port, 90 parallel requests on a quota of 50 give exactly 50 × 200
 * and 40 × 429 (several processes writing one SQLite file wait for each other instead
 * of failing), a killed worker is replaced, and SIGTERM stops everything with exit 0.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS, type TestDatabase } from "../harness/databases.js";
import { type DnsTestServer, startDnsServer } from "../harness/dns-server.js";
import { mailZones } from "../harness/mail-zones.js";
import { startServiceProcess } from "../harness/service-process.js";
import { startServiceWorld } from "../harness/service-world.js";
import { openStore } from "../src/store/index.js";

const DOMAIN = "example-shop.com";
const QUOTA = 50;
const REQUESTS = 90;

let dns: DnsTestServer;
beforeAll(async () => {
  dns = await startDnsServer(mailZones(["gmail.com", DOMAIN], "own-server"));
});
afterAll(() => dns.close());

async function createKey(database: TestDatabase): Promise<string> {
  const store = await openStore(database.location);
  try {
    await store.plans.createPlan({ name: "fifty", quota: QUOTA, periodDays: 30 });
    return (await store.keys.createKey({ plan: "fifty", now: new Date() })).secret;
  } finally {
    await store.close();
  }
}

/** Sends `count` requests at once, each on either route; returns the statuses, sorted. */
async function burst(url: string, secret: string, count: number): Promise<number[]> {
  const statuses = await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const response =
        index % 2 === 0
          ? await fetch(`${url}/?domain=${DOMAIN}`, { headers: { "x-gateway-key": secret } })
          : await fetch(`${url}/v2/`, {
              method: "POST",
              headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
              body: JSON.stringify({ email: `someone@${DOMAIN}` }),
            });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  return statuses.sort((a, b) => a - b);
}

describe.each(DATABASE_KINDS)("on %s", (kind) => {
  it("prepares once, serves with two workers, counts the quota exactly, replaces a dead worker and stops on SIGTERM", async () => {
    const world = await startServiceWorld({ dns, database: kind, workers: 2 });
    const { service, database } = world;
    try {
      const pids = service.listeningPids();
      expect(new Set(pids).size).toBe(2);
      expect(service.child.pid).not.toBe(pids[0]);
      // The primary made the first key, once; the workers made none.
      expect(service.output().match(/mr_\w{32}/g)).toHaveLength(1);
      expect(service.output().match(/created the first API key/g)).toHaveLength(1);

      const secret = await createKey(database);
      const statuses = await burst(service.url, secret, REQUESTS);
      expect(statuses.filter((status) => status === 200)).toHaveLength(QUOTA);
      expect(statuses.filter((status) => status === 429)).toHaveLength(REQUESTS - QUOTA);

      // A worker killed outright is replaced; the port keeps answering meanwhile.
      process.kill(pids[0] as number, "SIGKILL");
      await service.waitFor(/a worker died; replacing it/);
      // One "pid" key, the primary's (pino's own); the dead worker's is `workerPid`.
      const died = service
        .output()
        .split("\n")
        .find((line) => line.includes("a worker died")) as string;
      expect(died.match(/"pid":/g)).toHaveLength(1);
      expect(JSON.parse(died)).toMatchObject({ pid: service.child.pid, workerPid: pids[0] });
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
      await service.waitFor(() => service.listeningPids().length === 3);

      expect(await service.stop()).toBe(0);
      expect(service.output()).toContain('"msg":"stopped"');
      for (const pid of service.listeningPids()) expect(() => process.kill(pid, 0)).toThrow();
    } finally {
      await world.stop();
    }
  }, 60_000);
});

it("refuses a bad --workers with exit code 2", async () => {
  await expect(startServiceProcess({ workers: 0, env: { DATABASE_URL: "sqlite::memory:" } })).rejects.toThrow(
    /exited with 2[\s\S]*--workers must be a whole number/,
  );
});
