/**
 * Downloads of a large job's results on the real service (docs/jobs.md "Limits"), on
 * SQLite and PostgreSQL, while a loopback client asks `/healthz` and a keyed check every
 * 100 ms from a process of its own: three downloads at once, by three keys without an
 * account, each stream every row while the server's resident memory grows by less than
 * 100 MB and no poll takes 500 ms (on a quiet machine: the bound is stretched by the
 * machine's pace, harness/health-watcher.ts); one account's third download at once is refused (429)
 * while its two others stream. `npm test` downloads 20,000 rows a job; `npm run
 * test:soak` (TEST_SOAK) 1,000,000.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyIn, createKeysIn, DATABASE_KINDS } from "../../harness/databases.js";
import { watchHealth } from "../../harness/health-watcher.js";
import { normalCsv } from "../../harness/hostile-files.js";
import { mailZones } from "../../harness/mail-zones.js";
import { rawUpload, residentBytes } from "../../harness/raw-upload.js";
import { type ServiceWorld, startServiceWorld } from "../../harness/service-world.js";
import { soakSize } from "../../harness/soak.js";
import { CANARY_DOMAINS } from "../../src/service/checking/create-checker.js";
import { openStore } from "../../src/store/index.js";

const MB = 1024 * 1024;
const ROWS = soakSize(20_000, 1_000_000);
const DOMAINS = Array.from({ length: 50 }, (_, i) => `shop-${i}.com`);
/** Generous for a 1,000,000-row job on a loaded machine; the figures asked are memory and polls. */
const JOB_TIMEOUT_MS = ROWS * 2;

describe.each(DATABASE_KINDS)("downloads on %s", (kind) => {
  let world: ServiceWorld;
  let pid: number;
  /** Three keys without an account and an account's key, each with a done job of ROWS rows. */
  let loners: { secret: string; id: string }[];
  let account: { secret: string; id: string };

  const get = (secret: string, path: string) =>
    fetch(`${world.service.url}${path}`, { headers: { authorization: `Bearer ${secret}` } });

  /** Uploads ROWS rows as a job of `secret`; its id once stored. */
  async function upload(secret: string): Promise<string> {
    const answer = await rawUpload(
      `${world.service.url}/v2/jobs`,
      { authorization: `Bearer ${secret}`, "content-type": "text/csv" },
      normalCsv(ROWS, DOMAINS.length),
    );
    expect(answer.status, answer.text).toBe(202);
    return (JSON.parse(answer.text) as { id: string }).id;
  }

  async function untilDone(secret: string, id: string): Promise<void> {
    for (;;) {
      const job = (await (await get(secret, `/v2/jobs/${id}`)).json()) as { status: string };
      if (job.status === "done") return;
      expect(["queued", "running"]).toContain(job.status);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** A download's rows (its lines after the header), read to its end. */
  async function rowsOf(response: Response): Promise<number> {
    expect(response.status).toBe(200);
    let lines = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
      for (const byte of chunk) if (byte === 0x0a) lines++;
    return lines - 1;
  }

  /** Runs `downloads` while sampling the server's memory every 20 ms and polling it every 100 ms. */
  async function watched<T>(downloads: () => Promise<T>) {
    const probe = await createKeyIn(world.database.location, `probe-${kind}-${Date.now()}`, 1_000_000);
    const before = await residentBytes(pid);
    let peak = before;
    const sampler = setInterval(() => {
      residentBytes(pid).then(
        (now) => {
          peak = Math.max(peak, now);
        },
        () => {},
      );
    }, 20);
    const watch = await watchHealth(world.service.url, 100, { secret: probe, domain: "shop-1.com" });
    try {
      const result = await downloads();
      const polls = await watch.stop();
      return { result, growth: peak - before, polls, pollBound: watch.pace.bound(500) };
    } finally {
      clearInterval(sampler);
    }
  }

  beforeAll(async () => {
    world = await startServiceWorld({
      database: kind,
      zones: mailZones([...CANARY_DOMAINS, ...DOMAINS], "own-server"),
    });
    pid = world.service.listeningPids()[0] ?? 0;
    expect(pid).toBeGreaterThan(0);
    const secrets = await createKeysIn(world.database.location, "loners", 10 * ROWS, 3);
    await createKeyIn(world.database.location, "team", 10 * ROWS);
    const store = await openStore(world.database.location);
    let accountSecret: string;
    try {
      const made = await store.accounts.createAccount({
        email: "team@downloads.example",
        passwordHash: null,
        role: "member",
        plan: "team",
        now: new Date(),
      });
      accountSecret = made.secret;
    } finally {
      await store.close();
    }
    // One upload at a time: the jobs then run side by side, taking turns.
    const ids: string[] = [];
    for (const secret of [...secrets, accountSecret]) ids.push(await upload(secret));
    loners = secrets.map((secret, i) => ({ secret, id: ids[i] as string }));
    account = { secret: accountSecret, id: ids[3] as string };
    for (const { secret, id } of [...loners, account]) await untilDone(secret, id);
  }, JOB_TIMEOUT_MS + 120_000);

  afterAll(async () => {
    const codes = await world?.stop();
    if (world) expect(codes).toEqual([0]);
  });

  it("streams three downloads at once, by three keys, in bounded memory while polls stay quick", async () => {
    const { result, growth, polls, pollBound } = await watched(() =>
      Promise.all(loners.map(async ({ secret, id }) => rowsOf(await get(secret, `/v2/jobs/${id}/results`)))),
    );
    expect(result).toEqual([ROWS, ROWS, ROWS]);
    expect(growth).toBeLessThan(100 * MB);
    expect(polls.length).toBeGreaterThan(0);
    expect(Math.max(...polls)).toBeLessThan(pollBound);
  }, 300_000);

  it("streams two downloads of one account at once and refuses its third (429) meanwhile", async () => {
    const path = `/v2/jobs/${account.id}/results`;
    const { result, growth, polls, pollBound } = await watched(async () => {
      // Both answers have begun and neither is read yet: the two are running when the third is asked.
      const running = [await get(account.secret, path), await get(account.secret, path)];
      const third = await get(account.secret, path);
      const refusal = { status: third.status, code: ((await third.json()) as { code: string }).code };
      return { refusal, rows: await Promise.all(running.map(rowsOf)) };
    });
    expect(result.refusal).toEqual({ status: 429, code: "too_many_concurrent_requests" });
    expect(result.rows).toEqual([ROWS, ROWS]);
    expect(growth).toBeLessThan(100 * MB);
    expect(Math.max(...polls)).toBeLessThan(pollBound);
  }, 300_000);
});
