/**
 * Raw DNS queries. The real implementation talks to DNS servers over the wire
 * (`node:dns` Resolver with an own deadline); the in-memory one serves unit tests.
 * A failed query rejects with a DnsError whose code keeps the failure kinds apart.
 */
export type DnsErrorCode = "nxdomain" | "nodata" | "servfail" | "timeout" | "refused" | "failure";

export class DnsError extends Error {
  readonly code: DnsErrorCode;
  readonly rrtype: string;
  readonly hostname: string;

  constructor(code: DnsErrorCode, rrtype: string, hostname: string) {
    // A failed look-up is data (NODATA for AAAA is the common case), not a bug: its stack
    // would only name resolver internals, and capturing one costs more than the rest of a
    // check answered from memory. So none is captured.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`DNS ${rrtype} ${hostname}: ${code}`);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = "DnsError";
    this.code = code;
    this.rrtype = rrtype;
    this.hostname = hostname;
  }
}

export interface MxAnswer {
  exchange: string;
  priority: number;
}

export interface DnsResolver {
  mx(name: string): Promise<MxAnswer[]>;
  a(name: string): Promise<string[]>;
  aaaa(name: string): Promise<string[]>;
  ns(name: string): Promise<string[]>;
}

/** A name as DnsResolver answers carry it: lower-case, no trailing dot (the root is ""). */
export function canonicalDnsName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}
