/**
 * List jobs in real service processes (docs/jobs.md "Faults", "Suspension and deletion"):
 * on PostgreSQL, the service's connections terminated 4 times in 2 s during a
 * 20,000-item job do not fail it (it finishes `done`, every row once); on both
 * databases, suspending an account pauses its running job of 6,000 items (20,000 in
 * `npm run test:soak`; nothing more is checked, its key is refused), resuming finishes it
 * with every row once, and deleting an account removes its jobs and their rows at once.
 */
import { parse } from "csv-parse/sync";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createKeyIn, DATABASE_KINDS } from "../../harness/databases.js";
import { mailZones } from "../../harness/mail-zones.js";
import type { ServiceProcess } from "../../harness/service-process.js";
import { type ServiceWorld, startServiceWorld } from "../../harness/service-world.js";
import { soakSize } from "../../harness/soak.js";
import { CANARY_DOMAINS } from "../../src/service/checking/create-checker.js";
import { openStore } from "../../src/store/index.js";

const TOKEN = "admin-token-for-tests-0123456789abcdef";
/** Many domains, so that the job's look-ups take a while. */
const DOMAINS = Array.from({ length: 3000 }, (_, i) => `blip-${i}.com`);
const ZONES = mailZones([...CANARY_DOMAINS, ...DOMAINS], "own-server");
/** The blips' job: long enough that four blips 500 ms apart all land while it runs. */
const ITEMS = 20_000;
/**
 * The suspension's jobs: the pause, the resume and the deletion each meet a job that has
 * started and not finished (polled every 50 ms); `npm run test:soak` runs them at the
 * blips' size.
 */
const ACCOUNT_ITEMS = soakSize(6_000, ITEMS);

function lines(count: number, tag: string): string {
  return Array.from({ length: count }, (_, i) => `${tag}${i}@${DOMAINS[i % DOMAINS.length]}`).join("\n");
}

type JobView = { status: string; done: number; items: number };

async function call(service: ServiceProcess, bearer: string, method: string, path: string, body?: string) {
  // The admin API's posts take JSON; an upload is text.
  const type = path.startsWith("/admin/") ? "application/json" : "text/plain";
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { "content-type": type }) },
    ...(body === undefined ? {} : { body }),
  });
  return { status: response.status, text: await response.text() };
}

/**
 * The job as the operator sees it (an account's key is refused while it is suspended);
 * a 503 (the request met a terminated connection) is asked again.
 */
async function job(service: ServiceProcess, id: string): Promise<JobView> {
  for (let tries = 1; ; tries++) {
    const answer = await call(service, TOKEN, "GET", `/admin/jobs/${id}`);
    if (answer.status === 503 && tries < 5) continue;
    expect(answer.status, answer.text).toBe(200);
    return JSON.parse(answer.text);
  }
}

async function upload(service: ServiceProcess, key: string, body: string): Promise<string> {
  const created = await call(service, key, "POST", "/v2/jobs", body);
  expect(created.status, created.text).toBe(202);
  return JSON.parse(created.text).id;
}

async function until<T>(read: () => Promise<T>, holds: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (holds(value)) return value;
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const startedAndUnfinished = (j: JobView) => j.status === "running" && j.done > 0 && j.done < j.items;

/** The inputs of a done text job's results, in order. */
async function resultInputs(service: ServiceProcess, key: string, id: string): Promise<string[]> {
  const results = await call(service, key, "GET", `/v2/jobs/${id}/results`);
  expect(results.status).toBe(200);
  return (parse(results.text) as string[][]).slice(1).map((row) => row[0] as string);
}

/** A new account on a plan of 1,000,000 units in the world's database; its id and key. */
async function newAccount(world: ServiceWorld, email: string) {
  const plan = `plan-${email.split("@")[0]}`;
  await createKeyIn(world.database.location, plan, 1_000_000);
  const store = await openStore(world.database.location);
  try {
    const { account, secret } = await store.accounts.createAccount({
      email,
      passwordHash: null,
      role: "member",
      plan,
      now: new Date(),
    });
    return { id: account.id, key: secret };
  } finally {
    await store.close();
  }
}

const worlds: ServiceWorld[] = [];
afterAll(async () => {
  for (const world of worlds) await world.stop().catch(() => undefined);
});

describe("a database blip on PostgreSQL", () => {
  it("terminates the service's connections 4 times in 2 s: the job finishes done, every row once", async () => {
    const world = await startServiceWorld({
      zones: ZONES,
      database: "postgres",
      env: { ADMIN_TOKEN: TOKEN },
    });
    worlds.push(world);
    const key = await createKeyIn(world.database.location, "blip", 1_000_000);
    const id = await upload(world.service, key, lines(ITEMS, "b"));
    await until(() => job(world.service, id), startedAndUnfinished, 60_000);

    const admin = new pg.Client({ connectionString: world.database.url });
    await admin.connect();
    let terminated = 0;
    try {
      for (let blip = 0; blip < 4; blip++) {
        if (blip > 0) await new Promise((resolve) => setTimeout(resolve, 500));
        const { rows } = await admin.query<{ count: string }>(
          `select count(pg_terminate_backend(pid)) as count from pg_stat_activity
           where datname = current_database() and pid <> pg_backend_pid()`,
        );
        terminated += Number(rows[0]?.count ?? 0);
      }
    } finally {
      await admin.end();
    }
    // The blips were real: connections were ended while the job had items left.
    expect(terminated).toBeGreaterThan(0);
    const right = await job(world.service, id);
    expect(right.done).toBeLessThan(ITEMS);

    const ended = await until(
      () => job(world.service, id),
      (j) => j.status !== "running" && j.status !== "queued",
      120_000,
    );
    expect(ended).toMatchObject({ status: "done", done: ITEMS, items: ITEMS });
    expect(await resultInputs(world.service, key, id)).toEqual(lines(ITEMS, "b").split("\n"));
  }, 240_000);
});

describe.each(DATABASE_KINDS)("an account's state on %s", (kind) => {
  it("pauses a running job on suspension and finishes it on resume, every row once; deletion removes its jobs", async () => {
    const world = await startServiceWorld({ zones: ZONES, database: kind, env: { ADMIN_TOKEN: TOKEN } });
    worlds.push(world);
    const ann = await newAccount(world, "ann@example.com");
    const id = await upload(world.service, ann.key, lines(ACCOUNT_ITEMS, "a"));
    await until(() => job(world.service, id), startedAndUnfinished, 60_000);

    const suspended = await call(world.service, TOKEN, "POST", `/admin/accounts/${ann.id}/suspend`, "{}");
    expect(suspended.status, suspended.text).toBe(200);
    const paused = await job(world.service, id);
    expect(paused.status).toBe("paused");
    // Nothing more is checked while paused (a batch in flight is dropped, not counted).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await job(world.service, id)).toMatchObject({ status: "paused", done: paused.done });
    expect((await call(world.service, ann.key, "GET", `/v2/jobs/${id}`)).status).toBe(401);

    const resumed = await call(world.service, TOKEN, "POST", `/admin/accounts/${ann.id}/resume`, "{}");
    expect(resumed.status, resumed.text).toBe(200);
    const ended = await until(
      () => job(world.service, id),
      (j) => !["running", "queued", "paused"].includes(j.status),
      120_000,
    );
    expect(ended).toMatchObject({ status: "done", done: ACCOUNT_ITEMS, items: ACCOUNT_ITEMS });
    expect(await resultInputs(world.service, ann.key, id)).toEqual(lines(ACCOUNT_ITEMS, "a").split("\n"));

    // Deletion: the running job of another account and its rows go at once.
    const bob = await newAccount(world, "bob@example.com");
    const bobs = await upload(world.service, bob.key, lines(ACCOUNT_ITEMS, "b"));
    await until(() => job(world.service, bobs), startedAndUnfinished, 60_000);
    const deleted = await call(world.service, TOKEN, "DELETE", `/admin/accounts/${bob.id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect((await call(world.service, TOKEN, "GET", `/admin/jobs/${bobs}`)).status).toBe(404);
    const store = await openStore(world.database.location);
    try {
      expect(await store.jobs.results(bobs, -1, 1000)).toEqual([]);
    } finally {
      await store.close();
    }
    // Ann's job is kept.
    expect((await job(world.service, id)).status).toBe("done");
  }, 240_000);
});
