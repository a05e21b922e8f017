/**
 * The service as its users run it: `mailrisk serve --workers N` in a child process
 * (the built CLI when the run built dist/, else the sources through tsx:
 * harness/entry-points.ts), for the cluster tests and the workers benchmark. `startServiceProcess` resolves once every worker logged that it listens;
 * `stop()` sends SIGTERM and resolves to the exit code. The 30 s it waits for a start are
 * a quiet machine's, stretched by the machine's pace (machine-pace.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { request } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { builtForThisRun, cliArguments } from "./entry-points.js";
import { startPace } from "./machine-pace.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const LISTENING = /Server listening at (http:\/\/[\d.:]+)/;
const START_TIMEOUT_MS = 30_000;
const MAX_OUTPUT_CHARS = 2 * 1024 * 1024;

export interface ServiceProcess {
  /** e.g. `http://127.0.0.1:41234` */
  url: string;
  child: ChildProcess;
  /** Everything the process wrote, stdout and stderr. */
  output(): string;
  /** The pids of the processes that logged "Server listening", in order (workers, or the process itself). */
  listeningPids(): number[];
  /** Resolves when `condition` appears in the output, or holds (at most `timeoutMs`). */
  waitFor(condition: RegExp | (() => boolean), timeoutMs?: number): Promise<void>;
  /** SIGTERM, then the exit code (null when killed by a signal). */
  stop(): Promise<number | null>;
}

export interface ServiceProcessOptions {
  workers: number;
  /** The environment on top of this process's: DATABASE_URL, DNS_SERVERS, … (PORT defaults to 0, HOST to 127.0.0.1, LIST_SOURCES to off, TEST_NAMES to on). */
  env: Record<string, string>;
  /** The process's open-file limit: started through `sh -c "ulimit -n N && exec node …"`. */
  openFileLimit?: number;
  /**
   * Runs the built `dist/cli/main.js` as deployed (run `npm run build` first), not the
   * sources through tsx. Default: built when this test run built dist/ (harness/build-once.ts).
   */
  built?: boolean;
  /** Another checkout whose built `dist/` runs, in its own folder (a baseline: harness/baseline-build.ts). */
  checkout?: string;
}

export async function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcess> {
  const pace = startPace();
  const node = [
    process.execPath,
    ...(options.checkout
      ? [join(options.checkout, "dist/cli/main.js")]
      : cliArguments(options.built ?? builtForThisRun())),
    "serve",
    "--workers",
    String(options.workers),
  ];
  const [command, ...args] =
    options.openFileLimit === undefined
      ? node
      : ["sh", "-c", `ulimit -n ${options.openFileLimit} && exec "$@"`, "sh", ...node];
  const child = spawn(command as string, args, {
    cwd: options.checkout ?? ROOT,
    // No synced lists unless a test names its loopback sources: a test never fetches from the internet.
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "info",
      LIST_SOURCES: "off",
      TEST_NAMES: "on",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  // Under load the request log is long: the start (first key, listening lines) and the latest part are kept.
  const keep = (chunk: Buffer) => {
    output += chunk;
    if (output.length > MAX_OUTPUT_CHARS) {
      output = `${output.slice(0, MAX_OUTPUT_CHARS / 2)}${output.slice(output.indexOf("\n", output.length - MAX_OUTPUT_CHARS / 2))}`;
    }
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const listeningPids = () =>
    output
      .split("\n")
      .slice(0, -1) // complete lines only
      .filter((line) => LISTENING.test(line))
      .map((line) => (JSON.parse(line) as { pid: number }).pid);

  const waitUntil = async (done: () => boolean, what: string, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const waitFor = (condition: RegExp | (() => boolean), timeoutMs = pace.bound(START_TIMEOUT_MS)) =>
    typeof condition === "function"
      ? waitUntil(condition, "condition", timeoutMs)
      : waitUntil(() => condition.test(output), String(condition), timeoutMs);

  try {
    await waitUntil(
      () => listeningPids().length >= Math.max(1, options.workers),
      `${options.workers} listening processes`,
      pace.bound(START_TIMEOUT_MS),
    );
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  const url = LISTENING.exec(output)?.[1] as string;
  return {
    url,
    child,
    output: () => output,
    listeningPids,
    waitFor,
    stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

export interface NewConnectionRequest {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
}

/**
 * One request on a connection of its own: the primary of `serve --workers N` hands out
 * connections, not requests, so successive requests sent this way reach the workers in turn.
 */
export function requestOnNewConnection(
  url: string,
  { method = "GET", headers = {}, body }: NewConnectionRequest = {},
): Promise<{ status: number; text: string }> {
  const json = body === undefined ? {} : { "content-type": "application/json" };
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, agent: false, headers: { ...headers, ...json } }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        text += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
    });
    outgoing.on("error", reject);
    outgoing.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
