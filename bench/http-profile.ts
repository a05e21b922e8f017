/**
 * Where a check's time goes: `mailrisk serve` as deployed (bench/served.ts) under
 * `node --cpu-prof`, 50 connections, and the profile of its main thread from the measured
 * load on (start-up and warm-up left out; bench/cpu-profile.ts): the heaviest frames by
 * self time and by the time in them and what they call, printed, and the whole as a
 * flame graph in SVG beside the `.cpuprofile` file (BENCH_PROFILE_DIR, default a
 * temporary folder).
 *
 * - `npm run profile:http`: a cached check, BENCH_SECONDS (default 8) of `POST /v2/`
 *   (form body) and then as long of `GET /`.
 * - `npm run profile:cold`: unseen domains, each asking the loopback DNS server
 *   (bench/cold-checks.ts), BENCH_COLD_DOMAINS (default 12,000) after half as many of
 *   warm-up, the requests alternating between two keys.
 */
import "./test-names.js";
import { mkdtemp, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import type { ZoneNames } from "../harness/mail-zones.js";
import { addColdDomains, anotherKey, checkAll, domainNames } from "./cold-checks.js";
import { callTree, flameGraphSvg, heaviest, mainThreadProfile, monotonicMicros } from "./cpu-profile.js";
import { CONNECTIONS } from "./load.js";
import { describeMachine } from "./machine.js";
import { answersOf, build, DOMAIN, openWorld, type Served, serveMailrisk, type World } from "./served.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const COLD_DOMAINS = Number(process.env.BENCH_COLD_DOMAINS ?? 12_000);
const TOP = 25;

interface Mode {
  /** What the flame graph's title says was measured. */
  title: string;
  names: ZoneNames;
  /** Runs the load; resolves to when its measured part began (`monotonicMicros`), after any warm-up. */
  load(service: Served, world: World): Promise<number>;
}

const cached: Mode = {
  title: `cached checks, ${SECONDS} s of POST /v2/ then ${SECONDS} s of GET /`,
  names: {},
  async load(service, world) {
    await answersOf(service.url, world.secret);
    const from = monotonicMicros();
    await autocannon({
      url: `${service.url}/v2/`,
      method: "POST",
      headers: {
        authorization: `Bearer ${world.secret}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: `domain=${DOMAIN}`,
      connections: CONNECTIONS,
      duration: SECONDS,
    });
    await autocannon({
      url: `${service.url}/?domain=${DOMAIN}`,
      headers: { "x-gateway-key": world.secret },
      connections: CONNECTIONS,
      duration: SECONDS,
    });
    return from;
  },
};

function cold(): Mode {
  const warmup = Math.ceil(COLD_DOMAINS / 2);
  const names: ZoneNames = {};
  addColdDomains(names, warmup + COLD_DOMAINS);
  return {
    title: `cold checks, ${COLD_DOMAINS.toLocaleString("en-US")} unseen domains of POST /v2/ after ${warmup.toLocaleString("en-US")} of warm-up`,
    names,
    async load(service, world) {
      const secrets = [world.secret, await anotherKey(world)];
      await checkAll(service, world, secrets, domainNames(0, warmup));
      const from = monotonicMicros();
      const run = await checkAll(service, world, secrets, domainNames(warmup, COLD_DOMAINS));
      console.log(
        `${run.rate.toFixed(0)} checks/s under the profiler, ${run.cpuMicros.toFixed(0)} µs of CPU a check, ${run.failures} failed`,
      );
      return from;
    },
  };
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const mode = process.argv[2] === "cold" ? cold() : cached;
  build();
  const profileDir = process.env.BENCH_PROFILE_DIR ?? (await mkdtemp(join(tmpdir(), "mailrisk-profile-")));
  const world = await openWorld(mode.names);
  try {
    const service = await serveMailrisk(world, { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] });
    let from: number;
    try {
      from = await mode.load(service, world);
    } finally {
      await service.stop();
    }
    const { file, profile } = await mainThreadProfile(profileDir);
    const tree = await callTree(profile, from);
    const { self, total } = heaviest(tree, TOP);
    const print = (title: string, rows: [string, number][]) => {
      console.log(`\n${title} (of ${tree.samples} samples of the measured load, idle left out)`);
      for (const [name, count] of rows)
        console.log(`${((100 * count) / tree.samples).toFixed(1).padStart(5)} %  ${name}`);
    };
    print("self time", self);
    print("total time (the frame and what it calls)", total);
    const svg = file.replace(/\.cpuprofile$/, ".svg");
    await writeFile(
      svg,
      flameGraphSvg(tree, `mailrisk serve, main thread: ${mode.title}`, describeMachine(loadBefore)),
    );
    console.log(`\nprofile: ${file}\nflame graph: ${svg}`);
  } finally {
    await world.close();
  }
}

await main();
