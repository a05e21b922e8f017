/**
 * The traffic counters as users run the service (docs/console.md "Traffic"): two
 * instances of `mailrisk serve` on one database answer a known mix of checks (allowed,
 * disposable, parked) through the API, bulk, a result page and a list job; what both
 * counted adds up in `GET /admin/stats` and `mailrisk stats --json`, per day, surface
 * and reason. A cancelled job's units given back leave the key's total equal to the
 * quota's `used`, and an instance stopped by SIGTERM right after a check loses nothing.
 * Real DNS over the wire to a loopback server; on SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyIn, DATABASE_KINDS } from "../harness/databases.js";
import { runCli } from "../harness/instances.js";
import { addMailDomain, wholeTreeFixture, type ZoneNames } from "../harness/mail-zones.js";
import type { ServiceProcess } from "../harness/service-process.js";
import { type ServiceWorld, startServiceWorld } from "../harness/service-world.js";
import { Zones } from "../harness/zones.js";
import type { Stats } from "../src/operator/stats.js";
import { CANARY_DOMAINS } from "../src/service/checking/create-checker.js";

const ADMIN_TOKEN = "admin-token-for-the-stats-test-0123456789";
const ALLOWED = "shop-one.com";
const PARKED = "parked-shop.com";

function zones(): Zones {
  const names: ZoneNames = {};
  for (const domain of [...CANARY_DOMAINS, ALLOWED, "mailinator.com", "yopmail.com"])
    addMailDomain(names, domain, "own-server");
  names[PARKED] = { A: ["198.51.100.99"], NS: ["ns1.sedoparking.com", "ns2.sedoparking.com"] };
  return new Zones(wholeTreeFixture(names));
}

async function call(service: ServiceProcess, secret: string, path: string, init: RequestInit = {}) {
  const response = await fetch(`${service.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${secret}`, ...init.headers },
  });
  return { status: response.status, text: await response.text() };
}

function check(service: ServiceProcess, secret: string, domain: string) {
  return call(service, secret, "/v2/", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ domain }),
  });
}

async function adminStats(service: ServiceProcess): Promise<Stats> {
  return JSON.parse((await call(service, ADMIN_TOKEN, "/admin/stats")).text) as Stats;
}

async function until<T>(
  read: () => Promise<T>,
  holds: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (holds(value)) return value;
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const today = () => new Date().toISOString().slice(0, 10);
const todayOf = (stats: Stats) => stats.days.find((day) => day.day === today());

describe.each(DATABASE_KINDS)("on %s", (kind) => {
  let world: ServiceWorld;
  let secret: string;
  beforeAll(async () => {
    world = await startServiceWorld({
      zones: zones(),
      database: kind,
      instances: 2,
      env: { ADMIN_TOKEN },
    });
    secret = await createKeyIn(world.database.location, "team", 10_000);
  }, 90_000);
  afterAll(async () => {
    if (world) await world.stop();
  });

  it("adds up both instances' checks per day by surface and reason, providers, domains and keys", async () => {
    const [a, b] = world.services as [ServiceProcess, ServiceProcess];
    // Instance a: the API, 4 checks (2 allowed, 1 disposable, 1 parked).
    for (const domain of [ALLOWED, ALLOWED, "mailinator.com", PARKED]) {
      expect((await check(a, secret, domain)).status).toBe(200);
    }
    // Instance b: the API (1 allowed, 1 disposable), bulk (2 checked, 1 not an input), a result page (disposable).
    for (const domain of [ALLOWED, "yopmail.com"]) expect((await check(b, secret, domain)).status).toBe(200);
    const bulk = await call(b, secret, "/v2/bulk", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ items: [ALLOWED, PARKED, "not an input"] }),
    });
    expect(bulk.status).toBe(200);
    const page = await fetch(`${b.url}/domain/mailinator.com`, { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    // A list job of 3 items (allowed, disposable, parked), run by either instance.
    const created = await call(a, secret, "/v2/jobs", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: `a@${ALLOWED}\nb@mailinator.com\nc@${PARKED}\n`,
    });
    expect(created.status).toBe(202);
    const { id } = JSON.parse(created.text) as { id: string };
    await until(
      async () => JSON.parse((await call(a, secret, `/v2/jobs/${id}`)).text) as { status: string },
      (job) => job.status === "done",
    );

    const stats = await until(
      () => adminStats(a),
      (read) => todayOf(read)?.checks.total === 12 && read.top_keys[0]?.used === 12,
    );
    expect(stats.days).toHaveLength(30);
    expect(stats.to).toBe(today());
    expect(todayOf(stats)).toEqual({
      day: today(),
      checks: { api: 6, bulk: 2, jobs: 3, pages: 1, total: 12 },
      blocked: 7,
      blocks: { Disposable: 4, Parked: 3 },
    });
    expect(stats.days.filter((day) => day.day !== today()).every((day) => day.checks.total === 0)).toBe(true);
    expect(stats.totals).toEqual({
      checks: { api: 6, bulk: 2, jobs: 3, pages: 1, total: 12 },
      blocked: 7,
      blocks: { Disposable: 4, Parked: 3 },
    });
    expect(stats.top_disposable_providers).toEqual([
      { provider: "mailinator.com", count: 3 },
      { provider: "yopmail.com", count: 1 },
    ]);
    expect(stats.top_blocked_domains).toEqual([
      { domain: "mailinator.com", count: 3 },
      { domain: PARKED, count: 3 },
      { domain: "yopmail.com", count: 1 },
    ]);
    // The key's units: 6 API requests, 3 bulk items, 3 job items.
    expect(stats.top_keys).toMatchObject([{ used: 12, revoked: false, account_id: null }]);

    // The CLI, a process of its own, reads the same counters.
    const cli = await runCli(["stats", "--json"], world.env);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual(await adminStats(a));
  }, 60_000);

  it("subtracts a cancelled job's units on the day given back, so the key's total is the quota's used", async () => {
    const [a] = world.services as [ServiceProcess, ServiceProcess];
    const created = await call(a, secret, "/v2/jobs", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: `${Array.from({ length: 300 }, (_, i) => `u${i}@${ALLOWED}`).join("\n")}\n`,
    });
    expect(created.status).toBe(202);
    const { id } = JSON.parse(created.text) as { id: string };
    expect((await call(a, secret, `/v2/jobs/${id}`, { method: "DELETE" })).status).toBeLessThan(300);
    const usage = JSON.parse((await call(a, secret, "/v2/usage")).text) as { used: number };
    expect(usage.used).toBeLessThan(12 + 300);
    const stats = await until(
      () => adminStats(a),
      (read) => read.top_keys[0]?.used === usage.used,
    );
    expect(stats.top_keys[0]?.used).toBe(usage.used);
  }, 30_000);

  it("writes what an instance counted when SIGTERM stops it", async () => {
    const [a, b] = world.services as [ServiceProcess, ServiceProcess];
    const before = todayOf(await adminStats(a))?.checks.api ?? 0;
    expect((await check(b, secret, ALLOWED)).status).toBe(200);
    expect(await b.stop()).toBe(0);
    // Read at once through the other instance: what b counted is in the database already.
    expect(todayOf(await adminStats(a))?.checks.api).toBe(before + 1);
  }, 30_000);
});
