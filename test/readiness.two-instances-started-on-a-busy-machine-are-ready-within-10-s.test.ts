/**
 * Readiness that tells the truth under load (docs/operations.md "Readiness"): two
 * instances of `mailrisk serve` started at once while another process keeps both cores
 * busy, on one database and a working loopback resolver, both answer /readyz 200 within
 * 10 s of their start: the resolver canary retries a round its busy process read too late
 * instead of declaring the resolver down for a whole interval. The instances run the
 * built service (`npm run build`, as deployed). The 10 s are for a machine busy with this
 * test's own burners only: they are stretched by the machine's pace (harness/machine-pace.ts)
 * read before the burners start and after they stop, the load that others put on it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { afterAll, beforeAll, expect, it } from "vitest";
import buildOnce from "../harness/build-once.js";
import { createTestDatabase, type TestDatabase } from "../harness/databases.js";
import { type DnsTestServer, startDnsServer } from "../harness/dns-server.js";
import { startPace } from "../harness/machine-pace.js";
import { mailZones } from "../harness/mail-zones.js";
import { type ServiceProcess, startServiceProcess } from "../harness/service-process.js";
import { CANARY_DOMAINS } from "../src/service/checking/create-checker.js";
import { openStore } from "../src/store/index.js";

const READY_WITHIN_MS = 10_000;

let dns: DnsTestServer;
let database: TestDatabase;
const burners: ChildProcess[] = [];
const services: ServiceProcess[] = [];

beforeAll(async () => {
  // The instances run as deployed (dist/), so the time measured is the service's, not tsx's:
  // built once for the run (the processes room's global set-up), never under a running file.
  buildOnce();
  dns = await startDnsServer(mailZones(CANARY_DOMAINS, "own-server"));
  database = await createTestDatabase("sqlite");
  const store = await openStore(database.location);
  await store.migrate();
  await store.close();
}, 120_000);

afterAll(async () => {
  for (const burner of burners) burner.kill("SIGKILL");
  await Promise.all(services.map((service) => service.stop()));
  await dns?.close();
  await database?.drop();
});

/** Polls /readyz until 200; the milliseconds since `startedAt`, or throws `giveUpAfterMs` after it. */
async function readyAfter(
  service: ServiceProcess,
  startedAt: number,
  giveUpAfterMs: number,
): Promise<number> {
  let last = "";
  while (Date.now() - startedAt < giveUpAfterMs) {
    const answer = await fetch(`${service.url}/readyz`).catch((error: unknown) => String(error));
    if (typeof answer !== "string" && answer.status === 200) return Date.now() - startedAt;
    last = typeof answer === "string" ? answer : `${answer.status} ${await answer.text()}`;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never ready; last answer ${last}\n${service.output()}`);
}

it("makes two instances started on busy cores ready within 10 s", { timeout: 180_000 }, async () => {
  // The load others put on the machine, read before this test's own burners add theirs…
  const pace = startPace();
  for (let core = 0; core < Math.max(2, availableParallelism()); core++)
    burners.push(spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
  const env = { DATABASE_URL: database.url, DNS_SERVERS: dns.address };
  const startedAt = Date.now();
  const started = await Promise.all([
    startServiceProcess({ workers: 1, env, built: true }),
    startServiceProcess({ workers: 1, env, built: true }),
  ]);
  services.push(...started);
  const giveUpAfterMs = 3 * READY_WITHIN_MS * pace.atStart;
  const readyIn = await Promise.all(started.map((service) => readyAfter(service, startedAt, giveUpAfterMs)));
  for (const burner of burners) burner.kill("SIGKILL");
  // …and once they have stopped.
  const readyWithin = pace.bound(READY_WITHIN_MS);
  for (const service of started) expect(service.output()).not.toMatch(/DNS resolver does not answer/);
  expect(Math.max(...readyIn)).toBeLessThanOrEqual(readyWithin);
});
