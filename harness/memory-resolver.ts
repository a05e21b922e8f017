/**
 * DnsResolver answering from a `Zones` fixture in memory: answers, NXDOMAIN, NODATA,
 * SERVFAIL, REFUSED, and `drop` as a timeout (at once, or after the name's `delay`).
 * Names in answers are lower-case without a trailing dot, as from NodeDnsResolver.
 * For unit tests and the engine benchmark, where the wire is not the point.
 *
 * Zones are read-only, so each (type, name) is resolved once and its answer kept, frozen:
 * a query then costs a map look-up, as from a DNS cache, and an engine that changed an
 * answer it was given would throw instead of corrupting later checks.
 */
import {
  canonicalDnsName,
  type DnsAnswer,
  type DnsResolver,
  dnsFailure,
  type MxAnswer,
} from "../src/core/dns.js";
import { QueryLog } from "./query-log.js";
import type { Resolution, Zones } from "./zones.js";

/** The record type of each query type's answers. */
type RecordOf = { MX: MxAnswer; A: string; AAAA: string; NS: string };
type QueryType = keyof RecordOf;
/**
 * A query's answer and how long the name's server waits before giving it; for no wait,
 * the settled promise itself, handed to every caller (awaiting it does not change it).
 */
type Known<T> = { answer: DnsAnswer<T>; delay: number; settled: Promise<DnsAnswer<T>> };
/** The answers known for one name, by type: a check asks several types of one name. */
type NameAnswers = { [T in QueryType]: Known<RecordOf[T]> | undefined };

export class MemoryResolver implements DnsResolver {
  readonly queries: QueryLog;
  private readonly known = new Map<string, NameAnswers>();

  constructor(
    private readonly zones: Zones,
    options: { log: "per-name" | "total" } = { log: "per-name" },
  ) {
    this.queries = new QueryLog({ perName: options.log === "per-name" });
  }

  mx(name: string): Promise<DnsAnswer<MxAnswer>> {
    return this.ask(name, "MX", mxRecords);
  }

  a(name: string): Promise<DnsAnswer<string>> {
    return this.ask(name, "A", addressRecords);
  }

  aaaa(name: string): Promise<DnsAnswer<string>> {
    return this.ask(name, "AAAA", addressRecords);
  }

  ns(name: string): Promise<DnsAnswer<string>> {
    return this.ask(name, "NS", nameRecords);
  }

  private ask<T extends QueryType>(
    name: string,
    type: T,
    toRecords: (records: string[] | MxAnswer[]) => RecordOf[T][],
  ): Promise<DnsAnswer<RecordOf[T]>> {
    this.queries.record(name, type, "memory");
    const answers = this.answersOf(name);
    let known = answers[type] as Known<RecordOf[T]> | undefined;
    if (known === undefined) {
      const answer = answerOf(this.zones.resolve(name, type), toRecords);
      known = { answer, delay: this.zones.delayOf(name), settled: Promise.resolve(answer) };
      answers[type] = known as NameAnswers[T];
    }
    const { answer, delay, settled } = known;
    if (delay === 0) return settled;
    return new Promise((resolve) => setTimeout(() => resolve(answer), delay));
  }

  private answersOf(name: string): NameAnswers {
    let answers = this.known.get(name);
    if (answers === undefined) {
      answers = { MX: undefined, A: undefined, AAAA: undefined, NS: undefined };
      this.known.set(name, answers);
    }
    return answers;
  }
}

/** Zone records as NodeDnsResolver gives them, per type. */
const mxRecords = (records: string[] | MxAnswer[]): MxAnswer[] =>
  (records as MxAnswer[]).map(({ exchange, priority }) =>
    Object.freeze({ exchange: canonicalDnsName(exchange), priority }),
  );
const addressRecords = (records: string[] | MxAnswer[]): string[] => (records as string[]).slice();
const nameRecords = (records: string[] | MxAnswer[]): string[] => (records as string[]).map(canonicalDnsName);

function answerOf<T>(
  resolution: Resolution,
  toRecords: (records: string[] | MxAnswer[]) => T[],
): DnsAnswer<T> {
  if (resolution.kind === "answer") {
    return Object.freeze({ ok: true, records: Object.freeze(toRecords(resolution.records)) as T[] });
  }
  if (resolution.kind === "drop") return dnsFailure("timeout");
  // What c-ares makes of an unreadable answer, or of a truncated one TCP never completes.
  if (resolution.kind === "garbage" || resolution.kind === "truncated") return dnsFailure("failure");
  return dnsFailure(resolution.kind);
}
