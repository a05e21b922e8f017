/**
 * The worst moment for a PostgreSQL connection to die (issue #14's loaded runs: the usage
 * row one or a batch of five above the 200 answers): after the statement that counts a
 * request has committed, before the service hears so. A loopback proxy in front of the
 * database (harness/postgres-cutter.ts) cuts the connection right there, every time: the
 * request is answered 503 `database_unavailable`, and the units its count wrote are given
 * back (docs/http.md "When the database dies mid-request"), so the usage row counts
 * exactly the 200 answers. The same for a refund whose answer is lost: given once.
 */
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { createTestDatabase } from "../../harness/databases.js";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { FAULTS_DOMAIN, startFaultService } from "../../harness/fault-service.js";
import { mailZones } from "../../harness/mail-zones.js";
import { startPostgresCutter } from "../../harness/postgres-cutter.js";
import { CANARY_DOMAINS } from "../../src/service/checking/create-checker.js";

let dns: DnsTestServer;
beforeAll(async () => {
  dns = await startDnsServer(mailZones([...CANARY_DOMAINS, FAULTS_DOMAIN], "own-server"));
});
afterAll(() => dns.close());

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The service on a fresh PostgreSQL database reached through the cutter (its admin store straight, never cut). */
async function startService() {
  const database = await createTestDatabase("postgres", { migrated: true });
  cleanups.push(() => database.drop());
  const cutter = await startPostgresCutter(
    (database.location as { connectionString: string }).connectionString,
  );
  cleanups.push(() => cutter.close());
  const service = await startFaultService({ database, databaseUrl: cutter.connectionString, dns, cleanups });
  return { cutter, ...service };
}

/** The statement that counts requests: the upsert into a key's usage row. */
const COUNT = /insert into "usage"/;

it("answers 503 and charges nothing when the connection dies just after the count committed, on either route", async () => {
  const service = await startService();
  for (let index = 0; index < 2; index++) {
    const cut = service.cutter.cutAfter(COUNT);
    expect(await service.check(index)).toEqual({
      status: 503,
      retryAfter: expect.stringMatching(/^\d+$/),
      code: "database_unavailable",
    });
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
  // A time-out for a stuck test, not a bound: starting the service takes 12 s at load 10.
}, 60_000);
