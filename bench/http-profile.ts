/**
 * Where a cached check's time goes (`npm run profile:http`): `mailrisk serve` as
 * deployed (bench/served.ts) under `node --cpu-prof`, BENCH_SECONDS (default 8) of
 * cached `POST /v2/` (form body) and then as long of `GET /` at 50 connections, and the
 * profile's heaviest functions by self time, and by the time spent in them and what
 * they call (the flame graph's widest frames). The `.cpuprofile` file is kept
 * (BENCH_PROFILE_DIR, default a temporary folder) for a flame-graph viewer.
 */
import "./test-names.js";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { CONNECTIONS } from "./load.js";
import { answersOf, build, DOMAIN, openWorld, serveMailrisk } from "./served.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const TOP = 25;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/^.*\/node_modules\//, "").replace(/^.*\/(dist|src)\//, "$1/");
  return `${functionName || "(anonymous)"} ${where ? `${where}:${lineNumber + 1}` : ""}`.trim();
}

function report(profile: Profile): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  for (const id of profile.samples) {
    const node = byId.get(id);
    if (!node) continue;
    self.set(frameName(node), (self.get(frameName(node)) ?? 0) + 1);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = frameName(byId.get(at) as ProfileNode);
      if (seen.has(name)) continue;
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + 1);
    }
  }
  const samples = profile.samples.length;
  const print = (title: string, table: Map<string, number>) => {
    console.log(`\n${title} (of ${samples} samples)`);
    for (const [name, count] of [...table].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
      console.log(`${((100 * count) / samples).toFixed(1).padStart(5)} %  ${name}`);
    }
  };
  print("self time", self);
  print("total time (the frame and what it calls)", total);
}

async function main(): Promise<void> {
  build();
  const profileDir = process.env.BENCH_PROFILE_DIR ?? (await mkdtemp(join(tmpdir(), "mailrisk-profile-")));
  const world = await openWorld();
  try {
    const service = await serveMailrisk(world, { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] });
    try {
      await answersOf(service.url, world.secret);
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
    } finally {
      await service.stop();
    }
    const [file] = (await readdir(profileDir)).filter((name) => name.endsWith(".cpuprofile"));
    if (!file) throw new Error(`no profile in ${profileDir}`);
    console.log(`profile: ${join(profileDir, file)}`);
    report(JSON.parse(await readFile(join(profileDir, file), "utf8")) as Profile);
  } finally {
    await world.close();
  }
}

await main();
