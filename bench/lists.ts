/**
 * Syncing upstream lists (`npm run bench:lists`, docs/data.md "Synced lists").
 *
 * 1. A sync of one 200,000-entry source (BENCH_LIST_ENTRIES) from a loopback HTTP
 *    server into a SQLite file (fetch, read, judge each entry, store), then loading it
 *    into the lists in force (merge with the bundled list, build): the time of each and
 *    the process's peak RSS, sampled every 10 ms, against its RSS before.
 * 2. The check rate of `mailrisk serve` (a child process, one worker, SQLite, cached
 *    `POST /v2/`, 50 connections) in a window in which one new version is synced by
 *    a process of its own at nice 10, as `mailrisk lists update` (a new 200,000-entry version with
 *    10 % of it changed) and applied by the server when the change signal tells it,
 *    against a window without one: BENCH_ROUNDS rounds of BENCH_SECONDS each,
 *    alternating. Target: ≥ 0.8 × without.
 * 3. Five full sources (LIST_MAX_ENTRIES entries each, BENCH_FULL_ENTRIES) synced, one
 *    after another, into the PostgreSQL database of a `mailrisk serve` (built, as
 *    deployed: run `npm run build` first; one worker) that names them
 *    in LIST_SOURCES: the server's RSS before, its peak and after it applied the five
 *    (from /proc), and the longest answers to one-at-a-time cached checks and to
 *    `GET /healthz` while it applied them, against a window without. Targets: after
 *    < 400 MB, longest `/healthz` (a pause of the event loop) ≤ 100 ms.
 */
import "./test-names.js";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createKeyIn, createTestDatabase } from "../harness/databases.js";
import { startDnsServerProcess } from "../harness/dns-server-process.js";
import { type ListServer, madeUpList, startListServer } from "../harness/list-server.js";
import { addMailDomain, wholeTreeFixture, type ZoneNames } from "../harness/mail-zones.js";
import { type ServiceProcess, startServiceProcess } from "../harness/service-process.js";
import { loadConfig } from "../src/config.js";
import { DEFAULT_LIST_MAX_ENTRIES, type ListSource } from "../src/config-table.js";
import { domainListData, readListData } from "../src/data/read-domain-lists.js";
import { bundledGate, syncLists } from "../src/service/lists/list-sync.js";
import { ListsInForce } from "../src/service/lists/lists-in-force.js";
import { openStore } from "../src/store/index.js";
import { measureChecks } from "./load.js";
import { type FigureRow, finish, formatCount, formatMegabytes, median } from "./report.js";

const ENTRIES = Number(process.env.BENCH_LIST_ENTRIES ?? 200_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const DOMAIN = "example-shop.com";
const FULL_ENTRIES = Number(process.env.BENCH_FULL_ENTRIES ?? DEFAULT_LIST_MAX_ENTRIES);
const FULL_SOURCES = 5;

/** Runs `work` while sampling RSS every 10 ms: its result, seconds, and the peak RSS seen. */
async function measured<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number; peak: number }> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const started = performance.now();
  try {
    const result = await work();
    return {
      result,
      seconds: (performance.now() - started) / 1000,
      peak: Math.max(peak, process.memoryUsage().rss),
    };
  } finally {
    clearInterval(sampler);
  }
}

/** Version `n` of the big list: 10 % of its entries differ from version n - 1. */
function bigList(n: number): string {
  const kept = Math.floor(ENTRIES * 0.9);
  return `${madeUpList(kept)}${madeUpList(ENTRIES - kept, `version-${n}`)}`;
}

async function syncFigures(lists: ListServer): Promise<FigureRow[]> {
  const dir = await mkdtemp(join(tmpdir(), "mailrisk-bench-lists-"));
  const store = await openStore({ dialect: "sqlite", path: join(dir, "mailrisk.db") });
  try {
    await store.migrate();
    const bundled = domainListData(readListData());
    const gate = bundledGate();
    lists.publish("/big.txt", { body: bigList(0) });
    const before = process.memoryUsage().rss;
    const sync = await measured(() =>
      syncLists({
        store,
        sources: [{ name: "big", url: `${lists.url}/big.txt` }],
        maxEntries: DEFAULT_LIST_MAX_ENTRIES,
        gate,
        clock: () => new Date(),
        holder: "bench",
      }),
    );
    const accepted = sync.result.sources[0];
    const load = await measured(async () => {
      const inForce = new ListsInForce({ bundled, store, sources: ["big"] });
      await inForce.ready;
      return inForce;
    });
    const listed = load.result.disposable("throwaway-1.com", "throwaway-1.com") !== undefined;
    return [
      [
        `sync of a ${formatCount(ENTRIES)}-entry source (fetch, judge, store)`,
        `${sync.seconds.toFixed(2)} s, ${formatCount(accepted?.entries ?? 0)} accepted, peak RSS ${formatMegabytes(sync.peak)} (+${formatMegabytes(sync.peak - before)})`,
        "",
        accepted?.outcome === "accepted" ? null : false,
      ],
      [
        "loading it into the lists in force (merge, build)",
        `${load.seconds.toFixed(2)} s, peak RSS ${formatMegabytes(load.peak)} (+${formatMegabytes(load.peak - before)})`,
        "",
        listed ? null : false,
      ],
    ];
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function rateFigures(lists: ListServer): Promise<FigureRow[]> {
  const names: ZoneNames = {};
  addMailDomain(names, DOMAIN, "own-server");
  const dns = await startDnsServerProcess(wholeTreeFixture(names));
  const database = await createTestDatabase("sqlite");
  const service = await startServiceProcess({
    workers: 1,
    env: {
      DATABASE_URL: database.url,
      DNS_SERVERS: dns.address,
      AGE_LOOKUP: "off",
      LIST_SOURCES: `big=${lists.url}/big.txt`,
      LIST_SYNC_INTERVAL: "off",
    },
  });
  const syncer = startSyncer(database.url);
  let version = 0;
  const update = async () => {
    lists.publish("/big.txt", { body: bigList(++version) });
    const [outcome] = await syncer.sync([{ name: "big", url: `${lists.url}/big.txt` }]);
    if (outcome !== "accepted") throw new Error(`the sync was not accepted: ${outcome}`);
  };
  try {
    const secret = await createKeyIn(database.location, "bench", 2_000_000_000);
    await update();
    const load = (name: string, warmup: number) =>
      measureChecks(name, service.url, secret, DOMAIN, SECONDS, warmup);
    const without: number[] = [];
    const during: number[] = [];
    let syncs = 0;
    let failures = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const quiet = await load("without a sync", round === 0 ? 2 : 0);
      without.push(quiet.rps);
      // One sync per window, started with it: the window holds its whole application.
      const [busy] = await Promise.all([load("while a new version is applied", 0), update()]);
      syncs++;
      during.push(busy.rps);
      failures += quiet.failures + busy.failures;
    }
    const ratio = median(during) / median(without);
    return [
      ["cached POST /v2/ without a sync", `${formatCount(median(without))} req/s`, "", null],
      [
        "cached POST /v2/ while a new version is applied",
        `${formatCount(median(during))} req/s (${ratio.toFixed(2)} ×; ${syncs} windows, one sync of ${formatCount(ENTRIES)} entries each)${failures ? `, ${failures} failed` : ""}`,
        "≥ 0.8 × without",
        ratio >= 0.8 && failures === 0,
      ],
    ];
  } finally {
    syncer.stop();
    await service.stop();
    dns.stop();
    await database.drop();
  }
}

/** A process's resident and peak resident memory, in bytes (Linux). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

/** The longest answer to one-at-a-time requests until `done()` holds (at least `minMs` long), in ms. */
async function longestAnswer(request: () => Promise<Response>, done: () => boolean, minMs: number) {
  const started = Date.now();
  let longest = 0;
  while (!done() || Date.now() - started < minMs) {
    const at = performance.now();
    await (await request()).arrayBuffer();
    longest = Math.max(longest, performance.now() - at);
  }
  return longest;
}

/**
 * The longest cached check (it counts the key's quota in the database) and the longest
 * `GET /healthz` (the event loop alone), side by side, in ms.
 */
async function longestPauses(service: ServiceProcess, secret: string, done: () => boolean, minMs: number) {
  const check = () =>
    fetch(`${service.url}/v2/`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ domain: DOMAIN }),
    });
  const [checks, health] = await Promise.all([
    longestAnswer(check, done, minMs),
    longestAnswer(() => fetch(`${service.url}/healthz`), done, minMs),
  ]);
  return { checks, health };
}

async function fullSourcesFigures(lists: ListServer): Promise<FigureRow[]> {
  const names: ZoneNames = {};
  addMailDomain(names, DOMAIN, "own-server");
  const last = `full-${FULL_SOURCES}-${FULL_ENTRIES - 1}.com`;
  addMailDomain(names, last, "own-server");
  const dns = await startDnsServerProcess(wholeTreeFixture(names));
  const database = await createTestDatabase("postgres");
  const sources = Array.from({ length: FULL_SOURCES }, (_, i) => ({
    name: `full-${i + 1}`,
    url: `${lists.url}/full-${i + 1}.txt`,
  }));
  for (const { name } of sources) lists.publish(`/${name}.txt`, { body: madeUpList(FULL_ENTRIES, name) });
  const service = await startServiceProcess({
    workers: 1,
    built: true,
    env: {
      DATABASE_URL: database.url,
      DNS_SERVERS: dns.address,
      AGE_LOOKUP: "off",
      LIST_SOURCES: sources.map((s) => `${s.name}=${s.url}`).join(","),
      LIST_SYNC_INTERVAL: "off",
    },
  });
  const syncer = startSyncer(database.url);
  try {
    const secret = await createKeyIn(database.location, "bench", 2_000_000_000);
    const [pid] = service.listeningPids();
    if (pid === undefined) throw new Error("no serving process");
    const quiet = await longestPauses(service, secret, () => true, 3000);
    const before = memoryOf(pid).rss;
    let synced = false;
    const sync = syncer.sync(sources).finally(() => {
      synced = true;
    });
    let applied = false;
    const applying = (async () => {
      await sync;
      for (;;) {
        const answer = await fetch(`${service.url}/v2/`, {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
          body: JSON.stringify({ domain: last }),
        });
        if (((await answer.json()) as { is_disposable?: boolean }).is_disposable === true) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      applied = true;
    })();
    const during = await longestPauses(service, secret, () => synced && applied, 0);
    await applying;
    const outcomes = await sync;
    const accepted = outcomes.filter((outcome) => outcome === "accepted").length;
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const after = memoryOf(pid);
    // V8 gives back the memory of garbage when the process goes quiet (its memory reducer).
    await new Promise((resolve) => setTimeout(resolve, 25_000));
    const later = memoryOf(pid);
    return [
      [
        `server RSS after applying ${FULL_SOURCES} sources of ${formatCount(FULL_ENTRIES)} entries`,
        `${formatMegabytes(later.rss)} 30 s after (5 s after: ${formatMegabytes(after.rss)}; before ${formatMegabytes(before)}, peak ${formatMegabytes(later.peak)}; ${accepted} of ${FULL_SOURCES} accepted${accepted < FULL_SOURCES ? `: ${outcomes.join(", ")}` : ""})`,
        "< 400 MB",
        later.rss < 400 * 1024 * 1024 && accepted === FULL_SOURCES,
      ],
      [
        "longest cached check while they are applied",
        `${during.checks.toFixed(0)} ms (without: ${quiet.checks.toFixed(0)} ms)`,
        "",
        null,
      ],
      [
        "longest GET /healthz (the event loop) while they are applied",
        `${during.health.toFixed(0)} ms (without: ${quiet.health.toFixed(0)} ms)`,
        "≤ 100 ms",
        during.health <= 100,
      ],
    ];
  } finally {
    syncer.stop();
    await service.stop();
    dns.stop();
    await database.drop();
  }
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const lists = await startListServer();
  try {
    const rows = [
      ...(await syncFigures(lists)),
      ...(await rateFigures(lists)),
      ...(await fullSourcesFigures(lists)),
    ];
    finish({
      title: `mailrisk list-sync benchmark — ${formatCount(ENTRIES)} entries`,
      script: "bench:lists",
      loadBefore,
      rows,
      knobs: {
        BENCH_LIST_ENTRIES: ENTRIES,
        BENCH_SECONDS: SECONDS,
        BENCH_ROUNDS: ROUNDS,
        BENCH_FULL_ENTRIES: FULL_ENTRIES,
      },
    });
  } finally {
    await lists.close();
  }
}

/**
 * Syncs made by a process of its own, as `mailrisk lists update` on another machine (at
 * nice 10, like the DNS server and load generators of the other benchmarks): a sync in
 * the measuring process would stop its event loop, and the figures would measure that.
 * The server applies an accepted version when the change signal tells it.
 */
function startSyncer(databaseUrl: string) {
  const child = spawn(
    "nice",
    ["-n", "10", process.execPath, ...process.execArgv, fileURLToPath(import.meta.url), "--sync"],
    { env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ["ignore", "inherit", "inherit", "ipc"] },
  );
  return {
    /** Each source's outcome. */
    sync: (sources: ListSource[]) =>
      new Promise<string[]>((resolve) => {
        child.once("message", (outcomes) => resolve(outcomes as string[]));
        child.send(sources);
      }),
    stop: () => child.kill(),
  };
}

/** The syncing process: syncs the sources it is sent into DATABASE_URL, and answers their outcomes. */
async function syncOnRequest(): Promise<void> {
  const store = await openStore(loadConfig().database);
  const gate = bundledGate();
  process.on("message", async (sources) => {
    const report = await syncLists({
      store,
      sources: sources as ListSource[],
      maxEntries: DEFAULT_LIST_MAX_ENTRIES,
      gate,
      clock: () => new Date(),
      holder: "bench syncer",
    });
    process.send?.(report.sources.map((s) => (s.reason ? `${s.outcome} (${s.reason})` : s.outcome)));
  });
}

if (process.argv.includes("--sync")) await syncOnRequest();
else await main();
