/**
 * List jobs across processes (docs/jobs.md "Running"): owners take turns, so a 100-item
 * job finishes within 10 s while a big job of another key runs; a SIGKILL of the only
 * instance loses nothing (the restarted one finishes the job, every row once); two
 * instances on PostgreSQL share a job, each checking items, none twice. The 10 s is a bound
 * for a quiet machine, stretched by the machine's pace (harness/machine-pace.ts).
 */
import { parse } from "csv-parse/sync";
import { afterAll, describe, expect, it } from "vitest";
import { createKeyIn } from "../../harness/databases.js";
import { startPace } from "../../harness/machine-pace.js";
import { mailZones } from "../../harness/mail-zones.js";
import type { ServiceProcess } from "../../harness/service-process.js";
import { type ServiceWorld, startServiceWorld } from "../../harness/service-world.js";
import { soakSize } from "../../harness/soak.js";
import { CANARY_DOMAINS } from "../../src/service/checking/create-checker.js";

const DOMAINS = Array.from({ length: 200 }, (_, i) => `shop-${i}.com`);
const ZONES = mailZones([...CANARY_DOMAINS, ...DOMAINS], "own-server");

function lines(count: number, tag: string): string {
  return Array.from({ length: count }, (_, i) => `${tag}${i}@${DOMAINS[i % DOMAINS.length]}`).join("\n");
}

async function call(service: ServiceProcess, key: string, path: string, body?: string) {
  const response = await fetch(`${service.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
    ...(body === undefined ? {} : { body }),
  });
  return { status: response.status, text: await response.text() };
}

async function job(service: ServiceProcess, key: string, id: string) {
  return JSON.parse((await call(service, key, `/v2/jobs/${id}`)).text) as {
    status: string;
    done: number;
    items: number;
  };
}

async function upload(service: ServiceProcess, key: string, body: string): Promise<string> {
  const created = await call(service, key, "/v2/jobs", body);
  expect(created.status).toBe(202);
  return JSON.parse(created.text).id;
}

async function until<T>(read: () => Promise<T>, holds: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (holds(value)) return value;
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The inputs of a done text job's results, in order. */
async function resultInputs(service: ServiceProcess, key: string, id: string): Promise<string[]> {
  const results = await call(service, key, `/v2/jobs/${id}/results`);
  expect(results.status).toBe(200);
  return (parse(results.text) as string[][]).slice(1).map((row) => row[0] as string);
}

const worlds: ServiceWorld[] = [];
afterAll(async () => {
  for (const world of worlds) await world.stop().catch(() => undefined);
});

describe("one instance on SQLite", () => {
  const BIG = soakSize(100_000, 400_000);

  it("lets a 100-item job of another key finish within 10 s, then survives a SIGKILL mid-job", async () => {
    const world = await startServiceWorld({ zones: ZONES });
    worlds.push(world);
    const [big, small] = await Promise.all([
      createKeyIn(world.database.location, "big", 1_000_000),
      createKeyIn(world.database.location, "small", 1000),
    ]);
    const bigId = await upload(world.service, big, lines(BIG, "big"));
    await until(
      () => job(world.service, big, bigId),
      (j) => j.status === "running",
      10_000,
    );
    const pace = startPace();
    const started = Date.now();
    const smallId = await upload(world.service, small, lines(100, "small"));
    // A safety net: the bound that counts is the assertion's.
    await until(
      () => job(world.service, small, smallId),
      (j) => j.status === "done",
      60_000,
    );
    expect(Date.now() - started).toBeLessThan(pace.bound(10_000));
    // The property is real: the big job was still running when the small one finished.
    const during = await job(world.service, big, bigId);
    expect(during.status).toBe("running");

    world.service.child.kill("SIGKILL");
    await new Promise((resolve) => world.service.child.once("exit", resolve));
    const killedAt = await (async () => {
      const { openStore } = await import("../../src/store/index.js");
      const store = await openStore(world.database.location);
      try {
        return (await store.jobs.getJob(bigId))?.done ?? 0;
      } finally {
        await store.close();
      }
    })();
    expect(killedAt).toBeLessThan(BIG);
    const restarted = await world.startService();
    const ended = await until(
      () => job(restarted, big, bigId),
      (j) => j.status !== "running",
      90_000,
    );
    expect(ended).toMatchObject({ status: "done", done: BIG, items: BIG });
    const inputs = await resultInputs(restarted, big, bigId);
    expect(inputs).toEqual(lines(BIG, "big").split("\n"));
  }, 180_000);
});

describe("two instances on PostgreSQL", () => {
  it("share a job: both check items, none twice", async () => {
    const world = await startServiceWorld({
      zones: ZONES,
      database: "postgres",
      instances: 2,
      env: { METRICS_PUBLIC: "on" },
    });
    worlds.push(world);
    const key = await createKeyIn(world.database.location, "team", 1_000_000);
    const ITEMS = soakSize(10_000, 30_000);
    const id = await upload(world.service, key, lines(ITEMS, "pg"));
    const ended = await until(
      () => job(world.service, key, id),
      (j) => j.status !== "running" && j.status !== "queued",
      120_000,
    );
    expect(ended).toMatchObject({ status: "done", done: ITEMS });
    const checked = await Promise.all(
      world.services.map(async (service) => {
        const metrics = await (await fetch(`${service.url}/metrics`)).text();
        return Number(/^mailrisk_job_items_total (\d+)/m.exec(metrics)?.[1] ?? 0);
      }),
    );
    expect(checked.every((count) => count > 0)).toBe(true);
    expect(checked.reduce((sum, count) => sum + count, 0)).toBe(ITEMS);
    const [, second] = world.services as [ServiceProcess, ServiceProcess];
    expect(await resultInputs(second, key, id)).toEqual(lines(ITEMS, "pg").split("\n"));
  }, 180_000);
});
