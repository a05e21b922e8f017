/** Load generation shared by the HTTP benchmarks: autocannon, a warm-up, then the measured run. */
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
