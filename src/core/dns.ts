/**
 * Raw DNS queries. The real implementation talks to DNS servers over the wire
 * (`node:dns` Resolver with an own deadline); the in-memory one serves unit tests.
 * A failed query rejects with a DnsError whose code keeps the failure kinds apart.
 */
export type DnsErrorCode = "nxdomain" | "nodata" | "servfail" | "timeout" | "refused" | "failure";

export class DnsError extends Error {
  constructor(
    readonly code: DnsErrorCode,
    readonly rrtype: string,
    readonly hostname: string,
  ) {
    super(`DNS ${rrtype} ${hostname}: ${code}`);
    this.name = "DnsError";
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
