/** Load generation shared by the HTTP benchmarks: autocannon, a warm-up, then the measured run. */
import type { ChildProcess } from "node:child_process";
import autocannon from "autocannon";

export const CONNECTIONS = 50;
export const WARMUP_SECONDS = 2;

export interface LoadFigure {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  /** Non-2xx answers, errors and timeouts. */
  failures: number;
  /** Requests answered in the measured run. */
  requests: number;
}

/**
 * `seconds` of load with CONNECTIONS connections after a warm-up (WARMUP_SECONDS, or
 * `warmupSeconds`; 0 for none); `beforeRun` runs between the two.
 */
export async function measureLoad(
  name: string,
  seconds: number,
  options: Parameters<typeof autocannon>[0],
  beforeRun?: () => Promise<void>,
  warmupSeconds = WARMUP_SECONDS,
): Promise<LoadFigure> {
  if (warmupSeconds > 0) {
    await autocannon({ ...options, connections: CONNECTIONS, duration: warmupSeconds });
  }
  await beforeRun?.();
  const result = await autocannon({ ...options, connections: CONNECTIONS, duration: seconds });
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    requests: result.requests.total,
  };
}

/** A run of load against a server in a child process that answers "cpu" with its `process.cpuUsage()`. */
export interface ServerFigure extends LoadFigure {
  /** The server process's CPU time (user + system) per request answered in the measured run, µs. */
  cpuMicros: number;
}

/** The server process's CPU time so far, µs. */
function serverCpu(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once("message", (usage) => {
      const { user, system } = usage as NodeJS.CpuUsage;
      resolve(user + system);
    });
    child.send("cpu");
  });
}

/** `measureLoad` with the server's CPU time per request read around the measured run. */
export async function measureServerLoad(
  child: ChildProcess,
  name: string,
  seconds: number,
  options: Parameters<typeof autocannon>[0],
  warmupSeconds: number,
): Promise<ServerFigure> {
  let before = 0;
  const figure = await measureLoad(
    name,
    seconds,
    options,
    async () => {
      before = await serverCpu(child);
    },
    warmupSeconds,
  );
  const cpuMicros = (await serverCpu(child)) - before;
  return { ...figure, cpuMicros: cpuMicros / Math.max(1, figure.requests) };
}

/** `seconds` of cached `POST /v2/` checks of `domain` with the key, on a service at `url`. */
export function measureChecks(
  name: string,
  url: string,
  secret: string,
  domain: string,
  seconds: number,
  warmupSeconds: number,
): Promise<LoadFigure> {
  return measureLoad(
    name,
    seconds,
    {
      url: `${url}/v2/`,
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ domain }),
    },
    undefined,
    warmupSeconds,
  );
}
