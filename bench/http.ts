/**
 * HTTP throughput of the API (`npm run bench:http`): autocannon with 50 connections
 * against bare Fastify routes, then `POST /v2/` and `GET /` on a cached domain with
 * authentication and quota counting on (real store on a temporary SQLite file, real
 * checker answering from its cache). Servers run in a child process so the load
 * generator does not share their event loop.
 *
 * Two baselines. The bare JSON route of the issue answers `GET /` with `{"hello":"world"}`;
 * on a small machine the load generator then needs a core for itself, a route whose
 * answer is a 1.5 KB record costs the load generator more to read, and a POST's body
 * costs Node's HTTP parser and Fastify's body reading about 11 µs more than a GET,
 * whatever the route does. So there are also bare Fastify routes taking the same request
 * (method, URL, headers, body) and giving the same answer (`POST /record` with the same
 * JSON body and the full record; `GET /simple?domain=…` with the same key header and the
 * simple record), and the server's own CPU time per request is read from the child
 * (`process.cpuUsage`) around each measured run: what mailrisk adds to Fastify, apart
 * from what HTTP costs. Targets: `POST /v2/` and `GET /` ≥ 0.8 × the bare route of the
 * same request and answer, p99 ≤ 10 ms; the ratios to hello-world are
 * printed beside them.
 *
 * The same two requests with the secret key of an account (docs/accounts.md "The
 * account's list") whose own list holds ACCOUNT_LIST_ENTRIES entries without the domain
 * (the common case), and `POST /v2/` with the key of an account whose list of as many
 * blocks it: run beside the key without an account, each shows its ratio to it ("×
 * keyless"); the common case's target is ≥ 0.95 × keyless, with ≥ 0.8 × same as the others.
 *
 * A shared VM speeds up and slows down by a tenth within a minute, so one run per route
 * would judge the machine as much as the code: every route runs BENCH_ROUNDS times
 * (default 3) for BENCH_SECONDS (default 5), each API route right beside its
 * same-request route with the pair's order swapped every round. Rates and CPU are the
 * rounds' medians, p99 the worst round, and "× same" the median of the rounds' ratios.
 */
import { type ChildProcess, fork } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import Fastify from "fastify";
import { serveCachedApi } from "./cached-api.js";
import {
  CONNECTIONS,
  type measureLoad,
  measureServerLoad,
  type ServerFigure,
  WARMUP_SECONDS,
} from "./load.js";
import { describeMachine } from "./machine.js";
import { type FigureRow, finish, formatCount, median } from "./report.js";

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DOMAIN = "example.com";
const P99_LIMIT_MS = 10;
/** The entries of each account's own list: the most a list holds. */
const ACCOUNT_LIST_ENTRIES = 10_000;

interface Ports {
  bare: number;
  api: number;
  secret: string;
  /** Keys of accounts whose lists do not hold (`unlisted`) or block (`listed`) DOMAIN. */
  accounts: { unlisted: string; listed: string };
}

/** Child process: the bare routes and the API, each app on its own port; reports the ports, answers "cpu". */
async function serve(): Promise<void> {
  const api = await serveCachedApi(DOMAIN, false, { accountList: ACCOUNT_LIST_ENTRIES });
  const { url: apiUrl, secret, accounts } = api;
  if (!accounts) throw new Error("the API serves no account keys");

  // The bare routes answer what the API answers for the cached domain, byte for byte.
  const answer = (url: string, init: RequestInit) => fetch(`${apiUrl}${url}`, init).then((r) => r.json());
  const record = await answer("/v2/", {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ domain: DOMAIN }),
  });
  const simple = await answer(`/?domain=${DOMAIN}`, { headers: { "x-gateway-key": secret } });
  const bare = Fastify();
  bare.get("/", async () => ({ hello: "world" }));
  bare.post("/record", async () => record);
  bare.get("/simple", async () => simple);
  const bareUrl = await bare.listen({ host: "127.0.0.1", port: 0 });

  const shutdown = async () => {
    await Promise.all([bare.close(), api.close()]);
    process.exit(0);
  };
  process.on("message", (message) => {
    if (message === "stop") void shutdown();
    if (message === "cpu") process.send?.(process.cpuUsage());
  });
  const ports: Ports = {
    bare: Number(new URL(bareUrl).port),
    api: Number(new URL(apiUrl).port),
    secret,
    accounts,
  };
  process.send?.(ports);
}

type Figure = ServerFigure;

/** One measured run of a route against the server child. */
function measure(
  child: ChildProcess,
  name: string,
  options: Parameters<typeof measureLoad>[2],
  warmupSeconds: number,
): Promise<Figure> {
  return measureServerLoad(child, name, DURATION_SECONDS, options, warmupSeconds);
}

/** One route's runs, one per round. */
interface Runs {
  name: string;
  runs: Figure[];
}

/** An API route, the bare route taking the same request and giving the same answer, and its target. */
interface Comparison {
  route: Runs;
  same: Runs;
  atLeast: number;
  /** An account key's route: the same route with the key without an account, and the target against it (null: none). */
  keyless?: { runs: Runs; atLeast: number | null };
}

/** What a route's runs add up to: medians, the worst p99, and every failure. */
interface Summary {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  cpuMicros: number;
  failures: number;
}

function summarize({ name, runs }: Runs): Summary {
  return {
    name,
    rps: median(runs.map((run) => run.rps)),
    p50: median(runs.map((run) => run.p50)),
    p99: Math.max(...runs.map((run) => run.p99)),
    cpuMicros: median(runs.map((run) => run.cpuMicros)),
    failures: runs.reduce((sum, run) => sum + run.failures, 0),
  };
}

/** Each round's route ÷ other route (by default the same-request route), measured back to back. */
function roundRatios({ route, same }: Comparison, other: Runs = same): number[] {
  return route.runs.map((run, round) => run.rps / (other.runs[round]?.rps ?? Number.NaN));
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], { execArgv: process.execArgv });
  const ports = await new Promise<Ports>((resolve, reject) => {
    child.once("message", (message) => resolve(message as Ports));
    child.once("exit", (code) => reject(new Error(`server process exited with ${code}`)));
  });
  try {
    const bareUrl = `http://127.0.0.1:${ports.bare}`;
    const api = `http://127.0.0.1:${ports.api}`;
    const postRequest = {
      method: "POST" as const,
      headers: { authorization: `Bearer ${ports.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ domain: DOMAIN }),
    };
    const getHeaders = { "x-gateway-key": ports.secret };
    const postAs = (secret: string) => ({
      ...postRequest,
      headers: { ...postRequest.headers, authorization: `Bearer ${secret}` },
    });
    const targets = {
      hello: { name: "bare route, {hello: world}", options: { url: `${bareUrl}/` } },
      barePost: { name: "bare POST, full record", options: { url: `${bareUrl}/record`, ...postRequest } },
      post: { name: "POST /v2/ (cached domain)", options: { url: `${api}/v2/`, ...postRequest } },
      bareGet: {
        name: "bare GET, simple record",
        options: { url: `${bareUrl}/simple?domain=${DOMAIN}`, headers: getHeaders },
      },
      get: {
        name: "GET / (cached domain)",
        options: { url: `${api}/?domain=${DOMAIN}`, headers: getHeaders },
      },
      postAccount: {
        name: "POST /v2/ (acct, 10k list)",
        options: { url: `${api}/v2/`, ...postAs(ports.accounts.unlisted) },
      },
      getAccount: {
        name: "GET / (acct, 10k list)",
        options: { url: `${api}/?domain=${DOMAIN}`, headers: { "x-gateway-key": ports.accounts.unlisted } },
      },
      postListed: {
        name: "POST /v2/ (acct, on list)",
        options: { url: `${api}/v2/`, ...postAs(ports.accounts.listed) },
      },
    };
    type Target = keyof typeof targets;
    const runs = Object.fromEntries(
      Object.entries(targets).map(([key, { name }]) => [key, { name, runs: [] as Figure[] }]),
    ) as Record<Target, Runs>;
    // Each API route right beside its same-request route (and the account keys' beside
    // the keyless key's), the group's order swapped every round, so a machine that speeds
    // up or slows down during the run weighs on all alike.
    const groups: Target[][] = [
      ["barePost", "post", "postAccount", "postListed"],
      ["bareGet", "get", "getAccount"],
    ];
    for (let round = 0; round < ROUNDS; round++) {
      const order: Target[] = [
        "hello",
        ...groups.flatMap((group) => (round % 2 === 0 ? group : [...group].reverse())),
      ];
      for (const key of order) {
        const { name, options } = targets[key];
        runs[key].runs.push(await measure(child, name, options, round === 0 ? WARMUP_SECONDS : 0));
      }
    }
    report(
      runs.hello,
      [
        { route: runs.post, same: runs.barePost, atLeast: 0.8 },
        { route: runs.get, same: runs.bareGet, atLeast: 0.8 },
        {
          route: runs.postAccount,
          same: runs.barePost,
          atLeast: 0.8,
          keyless: { runs: runs.post, atLeast: 0.95 },
        },
        {
          route: runs.getAccount,
          same: runs.bareGet,
          atLeast: 0.8,
          keyless: { runs: runs.get, atLeast: 0.95 },
        },
        {
          route: runs.postListed,
          same: runs.barePost,
          atLeast: 0.8,
          keyless: { runs: runs.post, atLeast: null },
        },
      ],
      loadBefore,
    );
  } finally {
    child.send("stop");
  }
}

function row(cells: string[]): string {
  const [name = "", ...rest] = cells;
  return `${name.padEnd(28)}${rest
    .slice(0, 6)
    .map((cell) => cell.padStart(10))
    .join("")}  ${rest.slice(6).join(" ")}`.trimEnd();
}

function meets(comparison: Comparison): boolean {
  const route = summarize(comparison.route);
  const { keyless } = comparison;
  return (
    median(roundRatios(comparison)) >= comparison.atLeast &&
    (keyless?.atLeast == null || median(roundRatios(comparison, keyless.runs)) >= keyless.atLeast) &&
    route.p99 <= P99_LIMIT_MS &&
    route.failures === 0
  );
}

/**
 * An account key's ratio to the keyless key, and both server CPU times, steadier on a
 * busy machine: "0.99 × keyless (0.97–1.01), 31 vs 31 µs"; empty for another route.
 */
function keylessRatio(comparison: Comparison): string {
  if (!comparison.keyless) return "";
  const ratios = roundRatios(comparison, comparison.keyless.runs);
  const cpu = (runs: Runs) => summarize(runs).cpuMicros.toFixed(0);
  return `${median(ratios).toFixed(2)} × keyless (${ratioRange(ratios)}), ${cpu(comparison.route)} vs ${cpu(comparison.keyless.runs)} µs`;
}

/** The target of a comparison, as the figures table says it. */
function target({ atLeast, keyless }: Comparison): string {
  const againstKeyless = keyless?.atLeast == null ? "" : `, ≥ ${keyless.atLeast} × keyless`;
  return `≥ ${atLeast} × same request${againstKeyless}, p99 ≤ ${P99_LIMIT_MS} ms`;
}

function ratioRange(ratios: number[]): string {
  return `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
}

function report(helloRuns: Runs, comparisons: Comparison[], loadBefore: number): void {
  const hello = summarize(helloRuns);
  console.log(
    `\nmailrisk HTTP benchmark — ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_SECONDS} s per route (after ${WARMUP_SECONDS} s warm-up),`,
  );
  console.log(
    "real checker answering from the record cache, SQLite store, auth + quota counted, logging off",
  );
  console.log(`${describeMachine(loadBefore)}\n`);
  console.log(
    row(["route", "req/s", "p50 ms", "p99 ms", "server µs", "× hello", "× same", "verdict (rounds)"]),
  );
  const line = (figure: Summary, same: string, verdict: string) =>
    console.log(
      row([
        figure.name,
        figure.rps.toFixed(0),
        figure.p50.toFixed(1),
        figure.p99.toFixed(1),
        figure.cpuMicros.toFixed(0),
        (figure.rps / hello.rps).toFixed(2),
        same,
        verdict,
        figure.failures > 0 ? `(${figure.failures} failed requests)` : "",
      ]),
    );
  line(hello, "", "baseline");
  const shown = new Set<Runs>();
  for (const comparison of comparisons) {
    const ratios = roundRatios(comparison);
    // The bare route once, above the first API route beside it.
    if (!shown.has(comparison.same)) line(summarize(comparison.same), "1.00", "baseline");
    shown.add(comparison.same);
    const verdict = meets(comparison) ? "meets target" : `MISSES ${target(comparison)}`;
    line(
      summarize(comparison.route),
      median(ratios).toFixed(2),
      [`${verdict} (${ratioRange(ratios)})`, keylessRatio(comparison)].filter(Boolean).join("; "),
    );
  }
  console.log(
    `\nreq/s, p50 and server µs: medians of the rounds; p99: the worst round. "× same": the median of each round's ratio to the bare route taking the same request with the same answer, measured beside it (range in brackets)`,
  );
  console.log(
    `targets: POST /v2/ and GET / ≥ 0.8 × same, p99 ≤ ${P99_LIMIT_MS} ms; "server µs": the server's CPU per request`,
  );
  console.log(
    `acct: the key of an account whose own list holds ${formatCount(ACCOUNT_LIST_ENTRIES)} entries, without the domain ("10k list") or blocking it ("on list"); "× keyless": the median of each round's ratio to the same route with the key without an account; target of "10k list" ≥ 0.95 × keyless`,
  );
  const figures = (figure: Summary) =>
    `${formatCount(figure.rps)} req/s, p99 ${figure.p99.toFixed(1)} ms, ${figure.cpuMicros.toFixed(0)} µs CPU`;
  const rows: FigureRow[] = [
    [hello.name, figures(hello), "baseline", null],
    ...comparisons.flatMap((comparison, at): FigureRow[] => {
      const route = summarize(comparison.route);
      const same = summarize(comparison.same);
      const ratios = roundRatios(comparison);
      const first = comparisons.findIndex((other) => other.same === comparison.same) === at;
      const keyless = keylessRatio(comparison);
      return [
        ...(first ? [[same.name, figures(same), "baseline", null] satisfies FigureRow] : []),
        [
          route.name,
          `${figures(route)} (${median(ratios).toFixed(2)} × same request [${ratioRange(ratios)}], ${(route.rps / hello.rps).toFixed(2)} × hello${keyless && `, ${keyless}`})`,
          target(comparison),
          meets(comparison),
        ],
      ];
    }),
  ];
  finish({
    title: "mailrisk HTTP benchmark",
    script: "bench:http",
    loadBefore,
    rows,
    knobs: { BENCH_ROUNDS: ROUNDS, BENCH_SECONDS: DURATION_SECONDS },
    ownTable: true,
  });
}

if (process.argv.includes("--serve")) await serve();
else await main();
