/**
 * The cold path (`npm run bench:cold`, issue #44 item 4): checks of unseen domains,
 * each asking the loopback DNS server, through `mailrisk serve` as deployed
 * (bench/served.ts) against the same-work bare route (bench/bare-route.ts with `cold`):
 * a bare Fastify `POST /v2/` that asks the same DNS server the same queries, with
 * `node:dns` as mailrisk does, and answers mailrisk's bytes for the domain. Each server
 * in a process of its own, the DNS server in a third, autocannon in this one at 50
 * connections.
 *
 * The queries are those the check engine asks for one domain (recorded through a
 * resolver that notes each query), and each run's DNS queries per check, read from the
 * DNS server, must be the engine's for both servers (c-ares' retries of a late answer
 * aside, at most 0.1 a check), or that row misses. Every domain is a
 * working mail domain of its own (`addMailDomain`, `own-server`); the requests alternate
 * between two keys (`anotherKey`); each round sends
 * BENCH_COLD_DOMAINS (default 4,000) unseen domains to each server, in alternated
 * order, BENCH_ROUNDS rounds (default 3) after a warm-up of half as many. A run's rate
 * is its domains ÷ the time until the last answer. Targets: ≥ 2,000 checks/s, or
 * ≥ 0.8 × the bare route (median of the rounds' ratios).
 */
import "./test-names.js";
import { loadavg } from "node:os";
import { checkInput } from "../harness/check-input.js";
import { addMailDomain, wholeTreeFixture, type ZoneNames } from "../harness/mail-zones.js";
import { MemoryResolver } from "../harness/memory-resolver.js";
import { Zones } from "../harness/zones.js";
import type { DnsResolver } from "../src/core/dns.js";
import type { ColdQuery } from "./bare-route.js";
import { engineDeps } from "./checks.js";
import {
  addColdDomains,
  anotherKey,
  type ColdRun,
  checkAll,
  domainName,
  domainNames,
} from "./cold-checks.js";
import { CONNECTIONS } from "./load.js";
import { type FigureRow, finish, formatCount, median } from "./report.js";
import { build, openWorld, type Served, serveBare, serveMailrisk } from "./served.js";

const DOMAINS = Number(process.env.BENCH_COLD_DOMAINS ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_DOMAINS = Math.ceil(DOMAINS / 2);
const AT_LEAST_RATE = 2000;
const AT_LEAST_RATIO = 0.8;
/** The domain whose check names the queries and the answer the bare route repeats. */
const MODEL = "cold-model.com";

/**
 * The queries the check engine asks for `domain`, in the order asked, each with its
 * round: how many answers had come back when it was asked (the engine asks the MX host's
 * addresses once the MX answer is in).
 */
async function queriesOf(domain: string, names: ZoneNames): Promise<ColdQuery[]> {
  const memory = new MemoryResolver(new Zones(wholeTreeFixture(names)));
  const asked: ColdQuery[] = [];
  let answered = 0;
  const noting =
    <T>(type: ColdQuery["type"], ask: (name: string) => Promise<T>) =>
    async (name: string) => {
      asked.push({ type, name, round: answered });
      const answer = await ask(name);
      answered++;
      return answer;
    };
  const resolver: DnsResolver = {
    mx: noting("mx", (name) => memory.mx(name)),
    a: noting("a", (name) => memory.a(name)),
    aaaa: noting("aaaa", (name) => memory.aaaa(name)),
    ns: noting("ns", (name) => memory.ns(name)),
  };
  await checkInput(domain, engineDeps(resolver));
  // Rounds numbered 0, 1, … in order.
  const rounds = [...new Set(asked.map((query) => query.round))].sort((a, b) => a - b);
  return asked.map((query) => ({ ...query, round: rounds.indexOf(query.round) }));
}

async function post(url: string, secret: string, domain: string): Promise<string> {
  const response = await fetch(`${url}/v2/`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/x-www-form-urlencoded" },
    body: `domain=${domain}`,
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST /v2/ of ${domain} answered ${response.status}: ${text}`);
  return text;
}

/** An answer with its timestamps (the first check's time) left out, to compare two domains' answers. */
const timeless = (answer: string) => answer.replace(/"\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)"/g, '"…"');

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  build();
  const total = WARMUP_DOMAINS + ROUNDS * DOMAINS;
  const names: ZoneNames = {};
  addMailDomain(names, MODEL, "own-server");
  addColdDomains(names, total);
  const queries = await queriesOf(MODEL, names);
  const world = await openWorld(names);
  const servers: Served[] = [];
  try {
    const secrets = [world.secret, await anotherKey(world)];
    const service = await serveMailrisk(world);
    servers.push(service);
    const answer = await post(service.url, world.secret, MODEL);
    const bare = await serveBare(world, {
      full: answer,
      simple: answer,
      cold: { domain: MODEL, answer, queries, server: world.dns.address },
    });
    servers.push(bare);
    const bareAnswer = await post(bare.url, world.secret, MODEL);
    if (bareAnswer !== answer) throw new Error(`the bare route answers ${bareAnswer}, not ${answer}`);

    const warmup = domainNames(0, WARMUP_DOMAINS);
    await checkAll(service, world, secrets, warmup);
    await checkAll(bare, world, secrets, warmup);
    const runs: { mailrisk: ColdRun; bare: ColdRun }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const domains = domainNames(WARMUP_DOMAINS + round * DOMAINS, DOMAINS);
      const ours = round % 2 === 0 ? await checkAll(service, world, secrets, domains) : undefined;
      const theirs = await checkAll(bare, world, secrets, domains);
      const mailrisk = ours ?? (await checkAll(service, world, secrets, domains));
      runs.push({ mailrisk, bare: theirs });
      process.stderr.write(
        `round ${round + 1}: mailrisk ${mailrisk.rate.toFixed(0)}/s (${mailrisk.queriesPerCheck.toFixed(2)} queries a check, ${mailrisk.cpuMicros.toFixed(0)} µs CPU), bare ${theirs.rate.toFixed(0)}/s (${theirs.queriesPerCheck.toFixed(2)}, ${theirs.cpuMicros.toFixed(0)} µs)\n`,
      );
    }
    // The last domain's answer (cached now) is the model's with the domain in its place.
    const last = domainName(total - 1);
    const lastAnswer = await post(service.url, world.secret, last);
    if (timeless(lastAnswer) !== timeless(answer.replaceAll(MODEL, last)))
      throw new Error(`${last} answered ${lastAnswer}, unlike the model's ${answer}`);
    report(runs, queries.length, loadBefore);
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await world.close();
  }
}

function report(runs: { mailrisk: ColdRun; bare: ColdRun }[], asked: number, loadBefore: number): void {
  const ratios = runs.map((run) => run.mailrisk.rate / run.bare.rate);
  const rate = median(runs.map((run) => run.mailrisk.rate));
  const bareRate = median(runs.map((run) => run.bare.rate));
  const failures = runs.reduce((sum, run) => sum + run.mailrisk.failures + run.bare.failures, 0);
  const perCheck = (side: "mailrisk" | "bare") =>
    runs.map((run) => run[side].queriesPerCheck.toFixed(2)).join(", ");
  // The same queries, but for c-ares' retries of an answer that came late (at most one check in ten).
  const sameQueries = runs.every((run) =>
    [run.mailrisk, run.bare].every(
      (side) => side.queriesPerCheck >= asked && side.queriesPerCheck <= asked + 0.1,
    ),
  );
  const rows: FigureRow[] = [
    [
      "unseen domains/s, mailrisk",
      `${formatCount(rate)} (${runs.map((run) => formatCount(run.mailrisk.rate)).join(", ")}); p99 ${median(runs.map((run) => run.mailrisk.p99))} ms; CPU ${median(runs.map((run) => run.mailrisk.cpuMicros)).toFixed(0)} µs a check`,
      `≥ ${formatCount(AT_LEAST_RATE)}`,
      rate >= AT_LEAST_RATE && failures === 0,
    ],
    [
      "unseen domains/s, bare DNS route",
      `${formatCount(bareRate)} (${runs.map((run) => formatCount(run.bare.rate)).join(", ")}); p99 ${median(runs.map((run) => run.bare.p99))} ms; CPU ${median(runs.map((run) => run.bare.cpuMicros)).toFixed(0)} µs a check`,
      "",
      null,
    ],
    [
      "× bare (mailrisk ÷ bare, median)",
      `${median(ratios).toFixed(2)} (${ratios.map((ratio) => ratio.toFixed(2)).join(", ")})${failures ? `; ${failures} failed` : ""}`,
      `≥ ${AT_LEAST_RATIO}`,
      median(ratios) >= AT_LEAST_RATIO && failures === 0,
    ],
    [
      "DNS queries a check, mailrisk | bare",
      `${perCheck("mailrisk")} | ${perCheck("bare")} (the engine asks ${asked})`,
      "the same (+ retries ≤ 0.1)",
      sameQueries,
    ],
  ];
  finish({
    title: `mailrisk cold checks against the same-work DNS route — ${formatCount(DOMAINS)} unseen domains a run, ${ROUNDS} alternated rounds, ${CONNECTIONS} connections`,
    script: "bench:cold",
    loadBefore,
    rows,
    knobs: { BENCH_COLD_DOMAINS: DOMAINS, BENCH_ROUNDS: ROUNDS },
    notes: [
      "\nEach run checks its own unseen domains once (mailrisk) or the same domains (the bare route, which keeps nothing); rate: domains ÷ the time to the last answer. The bare route asks its queries in the engine's rounds (the MX host's addresses after the MX answer); the requests alternate between two keys, as one key holds at most 32 of the API's 64 look-ups at a time.",
    ],
  });
}

await main();
