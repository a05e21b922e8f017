/**
 * DnsResolver over the wire, with `node:dns` (c-ares).
 *
 * Deadline. c-ares' own timing is loose: it checks timeouts on a timer that ticks at
 * most once a second, shortens a try to as little as 250 ms once it has seen a fast
 * server, and with its defaults retries for up to 26 s. So every query gets an own
 * deadline of `timeoutMs` (a timer raced against the answer); c-ares gets the same value
 * as its per-try timeout and a few tries, so it retries a lost or slow packet inside the
 * deadline but the deadline alone decides when a query has timed out.
 *
 * Cancelling. `Resolver#cancel()` cancels every outstanding query of that Resolver, so a
 * query that passes its deadline must not cancel the Resolver it shares with others.
 * Instead the Resolver is retired: queries from then on go to a fresh one, and the
 * retired one is cancelled as soon as none of its queries is still live, which ends
 * only queries whose callers already got their timeout. A query abandoned at its
 * deadline therefore lingers at most one further deadline, while normal traffic shares
 * one Resolver (one socket per server) and a fresh one is opened at most once per
 * deadline period however many queries time out.
 *
 * In flight. A c-ares channel tells its outstanding queries apart by their 16-bit
 * query id and picks each new id by drawing until it finds a free one: with 65,536
 * queries outstanding it never finds one and spins forever inside `resolveMx()`,
 * blocking the event loop (long before that, each draw already takes ever longer). So at
 * most `maxInFlight` queries are on the wire at once; the rest wait their turn in
 * order, and a query's deadline starts when it is sent.
 */
import { Resolver } from "node:dns/promises";
import pLimit, { type LimitFunction } from "p-limit";
import {
  canonicalDnsName,
  type DnsAnswer,
  type DnsFailureCode,
  type DnsResolver,
  dnsFailure,
  type MxAnswer,
} from "../core/dns.js";

export interface NodeDnsResolverOptions {
  /** `ip`, `ip:port`, `[ipv6]:port` or a bare IPv6 address; empty → the system's resolvers. */
  servers: string[];
  /** Deadline of one query, in milliseconds. */
  timeoutMs: number;
  /** Queries on the wire at once (far below c-ares' 65,536 query ids); default 512. */
  maxInFlight?: number;
}

const DEFAULT_MAX_IN_FLIGHT = 512;

/** c-ares tries per server; they happen inside the deadline, which alone bounds a query. */
const TRIES = 3;

const ERROR_CODES: Readonly<Record<string, DnsFailureCode>> = {
  ENOTFOUND: "nxdomain",
  ENODATA: "nodata",
  ESERVFAIL: "servfail",
  ETIMEOUT: "timeout",
  EREFUSED: "refused",
};

/** Queries on the wire and waiting for a slot (`NodeDnsResolver.load`). */
export interface ResolverLoad {
  inFlight: number;
  waiting: number;
}

interface Channel {
  resolver: Resolver;
  /** Queries started here that have neither settled nor passed their deadline. */
  live: number;
}

export class NodeDnsResolver implements DnsResolver {
  private current: Channel;
  private readonly limit: LimitFunction;

  constructor(private readonly options: NodeDnsResolverOptions) {
    this.current = this.openChannel();
    this.limit = pLimit(options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
  }

  /** Queries sent and not yet settled, and queries waiting for a slot. */
  get load(): ResolverLoad {
    return { inFlight: this.limit.activeCount, waiting: this.limit.pendingCount };
  }

  mx(name: string): Promise<DnsAnswer<MxAnswer>> {
    return this.query(async (resolver) =>
      (await resolver.resolveMx(name)).map(({ exchange, priority }) => ({
        exchange: canonicalDnsName(exchange),
        priority,
      })),
    );
  }

  a(name: string): Promise<DnsAnswer<string>> {
    return this.query((resolver) => resolver.resolve4(name));
  }

  aaaa(name: string): Promise<DnsAnswer<string>> {
    return this.query((resolver) => resolver.resolve6(name));
  }

  ns(name: string): Promise<DnsAnswer<string>> {
    return this.query(async (resolver) => (await resolver.resolveNs(name)).map(canonicalDnsName));
  }

  private openChannel(): Channel {
    const resolver = new Resolver({ timeout: this.options.timeoutMs, tries: TRIES });
    if (this.options.servers.length > 0) resolver.setServers(this.options.servers);
    return { resolver, live: 0 };
  }

  /** Runs one query when a slot is free (see the file comment). */
  private query<T>(ask: (resolver: Resolver) => Promise<T[]>): Promise<DnsAnswer<T>> {
    return this.limit(() => this.send(ask));
  }

  /** Sends one query on the current channel under the deadline (see the file comment). */
  private send<T>(ask: (resolver: Resolver) => Promise<T[]>): Promise<DnsAnswer<T>> {
    const channel = this.current;
    channel.live++;
    const leave = () => {
      channel.live--;
      if (channel !== this.current && channel.live === 0) channel.resolver.cancel();
    };
    return new Promise<DnsAnswer<T>>((resolve) => {
      let pending = true;
      const deadline = setTimeout(() => {
        pending = false;
        if (channel === this.current) this.current = this.openChannel();
        leave();
        resolve(dnsFailure("timeout"));
      }, this.options.timeoutMs);
      ask(channel.resolver).then(
        (records) => {
          if (!pending) return;
          clearTimeout(deadline);
          leave();
          resolve({ ok: true, records });
        },
        (error: NodeJS.ErrnoException) => {
          if (!pending) return;
          clearTimeout(deadline);
          leave();
          resolve(dnsFailure(ERROR_CODES[error.code ?? ""] ?? "failure"));
        },
      );
    });
  }
}
