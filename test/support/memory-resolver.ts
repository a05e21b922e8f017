/**
 * DnsResolver answering from a `Zones` fixture in memory: answers, NXDOMAIN, NODATA,
 * SERVFAIL, REFUSED, and `drop` as a timeout error (at once, or after the name's
 * `delay`). Names in answers are lower-case without a trailing dot, as from
 * NodeDnsResolver. For unit tests and the engine benchmark, where the wire is not the point.
 */
import { canonicalDnsName, DnsError, type DnsResolver, type MxAnswer } from "../../src/core/dns.js";
import { QueryLog } from "./query-log.js";
import type { RecordSets, RecordType, Zones } from "./zones.js";

export class MemoryResolver implements DnsResolver {
  readonly queries = new QueryLog();

  constructor(private readonly zones: Zones) {}

  async mx(name: string): Promise<MxAnswer[]> {
    const records = await this.ask(name, "MX");
    return records.map(({ exchange, priority }) => ({ exchange: canonicalDnsName(exchange), priority }));
  }

  a(name: string): Promise<string[]> {
    return this.ask(name, "A");
  }

  aaaa(name: string): Promise<string[]> {
    return this.ask(name, "AAAA");
  }

  async ns(name: string): Promise<string[]> {
    return (await this.ask(name, "NS")).map(canonicalDnsName);
  }

  private ask<T extends RecordType>(name: string, type: T): Promise<RecordSets[T]> {
    this.queries.record(name, type, "memory");
    const resolution = this.zones.resolve(name, type);
    const settle =
      resolution.kind === "answer"
        ? () => Promise.resolve(resolution.records.slice() as RecordSets[T])
        : () => {
            const code = resolution.kind === "drop" ? "timeout" : resolution.kind;
            return Promise.reject(new DnsError(code, type, name));
          };
    const delay = this.zones.delayOf(name);
    if (delay === 0) return settle();
    return new Promise((resolve) => setTimeout(resolve, delay)).then(settle);
  }
}
