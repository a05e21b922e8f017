/**
 * Raw DNS queries. The real implementation talks to DNS servers over the wire
 * (`node:dns` Resolver with an own deadline); the in-memory ones serve tests and the
 * engine benchmark.
 *
 * A query never rejects: it settles with its answer or with the kind of failure, as
 * data. A failed look-up is an everyday outcome (NODATA for AAAA is the common case),
 * not an exception, and a rejection would cost an Error and its handling on every one.
 */
export type DnsFailureCode = "nxdomain" | "nodata" | "servfail" | "timeout" | "refused" | "failure";

export type DnsAnswer<T> = { ok: true; records: T[] } | { ok: false; code: DnsFailureCode };

export interface MxAnswer {
  exchange: string;
  priority: number;
}

export interface DnsResolver {
  mx(name: string): Promise<DnsAnswer<MxAnswer>>;
  a(name: string): Promise<DnsAnswer<string>>;
  aaaa(name: string): Promise<DnsAnswer<string>>;
  ns(name: string): Promise<DnsAnswer<string>>;
}

/** A name as DnsResolver answers carry it: lower-case, no trailing dot (the root is ""). */
export function canonicalDnsName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

/** The failure of a query that did not answer (the same object each time: answers are read, never changed). */
export function dnsFailure(code: DnsFailureCode): DnsAnswer<never> {
  return FAILURES[code];
}

const FAILURES: Readonly<Record<DnsFailureCode, DnsAnswer<never>>> = Object.freeze({
  nxdomain: Object.freeze({ ok: false, code: "nxdomain" }),
  nodata: Object.freeze({ ok: false, code: "nodata" }),
  servfail: Object.freeze({ ok: false, code: "servfail" }),
  timeout: Object.freeze({ ok: false, code: "timeout" }),
  refused: Object.freeze({ ok: false, code: "refused" }),
  failure: Object.freeze({ ok: false, code: "failure" }),
});
