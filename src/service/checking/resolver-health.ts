/**
 * Is the resolver telling the truth? A canary asks the MX of a few big mailbox providers
 * at start and then every `intervalMs`. When the resolver says they do not exist
 * (NXDOMAIN or no MX), the resolver is broken, not the world: a captive portal, a
 * filtering resolver, a misconfigured DNS_SERVERS. While it is, `GuardedResolver` turns
 * every "does not exist" answer into a DNS failure, so checks say `DNS failure` (valid,
 * briefly cached) instead of condemning every domain as NXDOMAIN for a day.
 *
 * States: `ok` (a canary answered with MX records), `broken` (every canary denied),
 * `unreachable` (no canary got an answer either way: timeouts, SERVFAIL, REFUSED).
 * A "does not exist" answer that arrives before the first probe has finished waits for it.
 *
 * A probe that got no answer at all asks again, `retries` times (default 2) after a short
 * pause, before it says `unreachable`: on a loaded machine (a start with others starting
 * beside it) a query's timer can fire before its answer is read, and one late answer must
 * not keep /readyz at 503 for a whole interval. A broken resolver is still declared in one
 * probe: it answers, it only lies. While the resolver is not sound, the next probe comes
 * after 5 s instead of the interval.
 */
import { type DnsAnswer, type DnsResolver, dnsFailure, type MxAnswer } from "../../core/dns.js";
import { PeriodicTask } from "../shared/periodic-task.js";

export type ResolverState = "ok" | "broken" | "unreachable";

/** The wait between probes while the resolver is broken or unreachable (at most the interval). */
const UNSOUND_INTERVAL_MS = 5_000;

export interface ResolverHealthOptions {
  resolver: DnsResolver;
  /** Domains whose MX certainly exists (big providers from the curated lists). */
  canaries: readonly string[];
  /** Time between probes; default 60 s. */
  intervalMs?: number;
  /** Probes more of a round that got no answer at all; default 2. */
  retries?: number;
  /** The pause before each of those; default 250 ms. */
  retryPauseMs?: number;
  clock?: () => Date;
  /** Told of the first report and of every report whose state differs from the one before (undefined: none before). */
  onStateChange?: (report: ResolverHealthReport, previous: ResolverState | undefined) => void;
}

export interface ResolverHealthReport {
  state: ResolverState;
  /** When the state was last decided. */
  checkedAt: Date | undefined;
  /** What each canary answered: `mx`, or the failure code. */
  canaries: Record<string, string>;
}

export class ResolverHealth {
  private report: ResolverHealthReport | undefined;
  private readonly probing: PeriodicTask;

  constructor(private readonly options: ResolverHealthOptions) {
    const interval = options.intervalMs ?? 60_000;
    // While the resolver is not sound, it is asked again sooner, so its recovery shows soon.
    this.probing = new PeriodicTask({
      run: () => this.decide(),
      everyMs: () => (this.report?.state === "ok" ? interval : Math.min(interval, UNSOUND_INTERVAL_MS)),
    });
  }

  /** Probes now, then every interval (the timer never keeps the process alive). */
  start(): void {
    this.probing.start();
  }

  stop(): Promise<void> {
    return this.probing.stop();
  }

  /** The last decided report; undefined before the first probe finished. */
  latest(): ResolverHealthReport | undefined {
    return this.report;
  }

  /** The current state, waiting for the first probe when none has finished yet. */
  async state(): Promise<ResolverState> {
    return (this.report ?? (await this.probe())).state;
  }

  /** Probes now, or waits for the probe in progress. */
  async probe(): Promise<ResolverHealthReport> {
    await this.probing.runNow();
    if (!this.report) throw new Error("the resolver canary could not decide a state");
    return this.report;
  }

  private ask(): Promise<DnsAnswer<MxAnswer>[]> {
    return Promise.all(this.options.canaries.map((domain) => this.options.resolver.mx(domain)));
  }

  private async decide(): Promise<void> {
    let answers = await this.ask();
    for (let retry = 0; retry < (this.options.retries ?? 2) && stateOf(answers) === "unreachable"; retry++) {
      await new Promise((resolve) => setTimeout(resolve, this.options.retryPauseMs ?? 250).unref());
      answers = await this.ask();
    }
    const canaries: Record<string, string> = {};
    answers.forEach((answer, i) => {
      canaries[this.options.canaries[i] as string] = answer.ok ? "mx" : answer.code;
    });
    const previous = this.report?.state;
    this.report = {
      state: stateOf(answers),
      checkedAt: (this.options.clock ?? (() => new Date()))(),
      canaries,
    };
    if (this.report.state !== previous) this.options.onStateChange?.(this.report, previous);
  }
}

/**
 * What a person should read of a report (a log line, a CLI warning): what the canary
 * found, what it does to the checks, and `servers` (DNS_SERVERS, or the system's) to change.
 */
export function describeResolverState(
  report: ResolverHealthReport,
  previous: ResolverState | undefined,
  servers: string,
): string {
  const answers = Object.entries(report.canaries)
    .map(([domain, answer]) => `${domain}: ${answer}`)
    .join(", ");
  if (report.state === "ok") {
    return previous === undefined
      ? `the DNS resolver answers (${servers})`
      : `the DNS resolver answers again (${servers}); checks look domains up as usual`;
  }
  const what =
    report.state === "broken"
      ? `denies that ${Object.keys(report.canaries).join(", ")} exist (${answers})`
      : `does not answer (${answers})`;
  return `the DNS resolver ${what}: every check answers "DNS timeout" or "DNS failure" while this lasts, and /readyz answers 503 dns_unavailable. Resolver: ${servers}; set DNS_SERVERS to a working one (e.g. DNS_SERVERS=1.1.1.1,8.8.8.8)`;
}

function denies(answer: DnsAnswer<unknown>): boolean {
  return answer.ok ? answer.records.length === 0 : answer.code === "nxdomain" || answer.code === "nodata";
}

function stateOf(answers: readonly DnsAnswer<MxAnswer>[]): ResolverState {
  if (answers.some((answer) => answer.ok && answer.records.length > 0)) return "ok";
  return answers.length > 0 && answers.every(denies) ? "broken" : "unreachable";
}

/** A resolver whose "does not exist" answers count only while the canary says the resolver is sound. */
export class GuardedResolver implements DnsResolver {
  constructor(
    private readonly inner: DnsResolver,
    private readonly health: ResolverHealth,
  ) {}

  private async guard<T>(answer: DnsAnswer<T>): Promise<DnsAnswer<T>> {
    if (!denies(answer)) return answer;
    return (await this.health.state()) === "broken" ? dnsFailure("failure") : answer;
  }

  async mx(name: string): Promise<DnsAnswer<MxAnswer>> {
    return this.guard(await this.inner.mx(name));
  }

  async a(name: string): Promise<DnsAnswer<string>> {
    return this.guard(await this.inner.a(name));
  }

  async aaaa(name: string): Promise<DnsAnswer<string>> {
    return this.guard(await this.inner.aaaa(name));
  }

  async ns(name: string): Promise<DnsAnswer<string>> {
    return this.guard(await this.inner.ns(name));
  }
}
