/** The part of autocannon's API the benchmarks use (the package ships no types). */
declare module "autocannon" {
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    /** Requests to send in all (instead of a duration). */
    amount?: number;
    /** Requests a second over all connections (a fixed rate instead of as fast as answered). */
    overallRate?: number;
    /** Seconds before a request counts as timed out. */
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Requests sent in turn; `setupRequest` makes each one as it is sent (a body of its own). */
    requests?: RequestOptions[];
  }
  interface RequestOptions {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: RequestOptions) => RequestOptions;
  }
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
  }
  interface Result {
    requests: Histogram & { total: number };
    latency: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  /**
   * A run: its result once done, and its events as they come. autocannon hands the
   * result over at the tick after the last answer (its sampling interval, one second), so
   * a run's own length is read from its `response` events.
   */
  interface Run extends PromiseLike<Result> {
    on(event: "response", listener: () => void): Run;
  }
  function autocannon(options: Options): Run;
  export default autocannon;
}
