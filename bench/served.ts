/**
 * The servers the side-by-side HTTP benchmarks measure, each in a process of its own:
 * `mailrisk serve` as deployed (the built `dist/cli/main.js`, its defaults: workers,
 * LOG_LEVEL, ACCESS_LOG; its log written to a file, as a service's log is) on a SQLite
 * file with one key on a plan without a practical limit, DNS from a loopback server in a
 * third process; and the same-work bare route (bench/bare-route.ts), which takes the same
 * requests and sends the same answer bytes with no key, quota or checking.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type DnsServerProcess, startDnsServerProcess } from "../harness/dns-server-process.js";
import { addMailDomain, wholeTreeFixture, type ZoneNames } from "../harness/mail-zones.js";
import { openStore } from "../src/store/index.js";
import type { BareAnswers } from "./bare-route.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const LISTENING = /"msg":"Server listening at (http:\/\/[\d.:]+)"/;
const START_TIMEOUT_MS = 30_000;

/** Where the servers listen; also the HOST of their environment. */
export const SERVER_HOST = "127.0.0.1";

/** The domain every cached request checks. */
export const DOMAIN = "example.com";

/** A server in a child process. */
export interface Served {
  url: string;
  child: ChildProcess;
  pid: number;
  stop(): Promise<void>;
}

/** `npm run build`: the benchmarks measure the built service, as deployed. */
export function build(): void {
  if (process.env.BENCH_NO_BUILD === "1") return;
  execFileSync("npm", ["run", "--silent", "build"], { cwd: ROOT, stdio: "inherit" });
}

async function waitForLine(
  file: string,
  pattern: RegExp,
  child: ChildProcess,
  timeoutMs: number,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await readFile(file, "utf8").catch(() => "");
    const found = pattern.exec(text);
    if (found?.[1]) return found[1];
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${text}`);
    if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function stopper(child: ChildProcess): () => Promise<void> {
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    return exited;
  };
}

/** What the service benchmarks share: a temporary folder, the seeded database and the loopback DNS server. */
export interface World {
  dir: string;
  databaseUrl: string;
  secret: string;
  dns: DnsServerProcess;
  close(): Promise<void>;
}

/** A SQLite file with a key on a plan without a practical limit, and a DNS server that knows DOMAIN (and `extra` names). */
export async function openWorld(extra: ZoneNames = {}): Promise<World> {
  const dir = await mkdtemp(join(tmpdir(), "mailrisk-bench-"));
  const databaseUrl = `sqlite:${join(dir, "mailrisk.db")}`;
  const store = await openStore({ dialect: "sqlite", path: join(dir, "mailrisk.db") });
  let secret: string;
  try {
    await store.migrate();
    await store.plans.createPlan({ name: "bench", quota: 2_000_000_000, periodDays: 30 });
    secret = (await store.keys.createKey({ plan: "bench", now: new Date() })).secret;
  } finally {
    await store.close();
  }
  const names: ZoneNames = { ...extra };
  addMailDomain(names, DOMAIN, "own-server");
  const dns = await startDnsServerProcess(wholeTreeFixture(names));
  return {
    dir,
    databaseUrl,
    secret,
    dns,
    async close() {
      dns.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `node dist/cli/main.js serve` with the service's defaults; only what a loopback machine
 * needs is set (database, DNS server, no list sync or age look-ups over the internet,
 * the documentation ranges of the test world), plus `env`. Its log goes to `log`.
 */
export async function serveMailrisk(
  world: World,
  options: {
    env?: Record<string, string>;
    nodeArgs?: string[];
    /** Arguments of `serve` (`--workers 1`). */
    args?: string[];
    /** A command the service runs under (valgrind). */
    wrapper?: string[];
    log?: string;
  } = {},
): Promise<Served> {
  const log = options.log ?? join(world.dir, `service-${Date.now()}.log`);
  const fd = openSync(log, "w");
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOST: SERVER_HOST,
    PORT: "0",
    DATABASE_URL: world.databaseUrl,
    DNS_SERVERS: world.dns.address,
    AGE_LOOKUP: "off",
    LIST_SOURCES: "off",
    TEST_NAMES: "on",
    ...options.env,
  };
  // The benchmark's own settings are not the service's.
  delete env.LOG_LEVEL;
  delete env.NODE_OPTIONS;
  if (options.env?.LOG_LEVEL) env.LOG_LEVEL = options.env.LOG_LEVEL;
  const wrapper = options.wrapper ?? [];
  const [command, ...args] = [
    ...wrapper,
    process.execPath,
    ...(options.nodeArgs ?? []),
    "dist/cli/main.js",
    "serve",
    ...(options.args ?? []),
  ];
  const child = spawn(command as string, args, { cwd: ROOT, env, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  const url = await waitForLine(log, LISTENING, child, options.wrapper ? 600_000 : START_TIMEOUT_MS).catch(
    (error) => {
      child.kill("SIGKILL");
      throw error;
    },
  );
  return { url, child, pid: child.pid ?? 0, stop: stopper(child) };
}

/** The answers of mailrisk to the two cached requests, byte for byte (after a first request caches DOMAIN). */
export async function answersOf(url: string, secret: string): Promise<{ full: string; simple: string }> {
  const post = () =>
    fetch(`${url}/v2/`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/x-www-form-urlencoded" },
      body: `domain=${DOMAIN}`,
    });
  const first = await post();
  if (first.status !== 200) throw new Error(`POST /v2/ answered ${first.status}: ${await first.text()}`);
  await first.text();
  const full = await (await post()).text();
  const simple = await (
    await fetch(`${url}/?domain=${DOMAIN}`, { headers: { "x-gateway-key": secret } })
  ).text();
  return { full, simple };
}

/** The same-work bare route (bench/bare-route.ts) in a process of its own, answering `answers`. */
export async function serveBare(
  world: World,
  answers: BareAnswers,
  options: { nodeArgs?: string[]; wrapper?: string[] } = {},
): Promise<Served> {
  const answersFile = join(world.dir, "answers.json");
  await writeFile(answersFile, JSON.stringify(answers));
  const log = join(world.dir, `bare-${Date.now()}.log`);
  const fd = openSync(log, "w");
  const [command, ...args] = [
    ...(options.wrapper ?? []),
    process.execPath,
    ...(options.nodeArgs ?? []),
    "--import",
    "tsx",
    "bench/bare-route.ts",
    answersFile,
  ];
  const child = spawn(command as string, args, {
    cwd: ROOT,
    env: { ...process.env, HOST: SERVER_HOST },
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  const url = await waitForLine(
    log,
    /^listening (http:\/\/[\d.:]+)$/m,
    child,
    options.wrapper ? 600_000 : START_TIMEOUT_MS,
  ).catch((error) => {
    child.kill("SIGKILL");
    throw error;
  });
  return { url, child, pid: child.pid ?? 0, stop: stopper(child) };
}

/** The process's CPU time so far (user + system, µs), from /proc. */
export async function cpuMicros(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / 100;
}
