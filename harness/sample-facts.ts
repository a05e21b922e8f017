/** Facts as a look-up finds them (src/core/check.ts `DomainFacts`), for tests that store or decide them. */
import type { DomainFacts } from "../src/core/check.js";

/** A domain with one MX host that resolves (by default mx.<domain> on 192.0.2.1), no age known. */
export function mxFacts(domain: string, ip = "192.0.2.1", createdAt: Date | null = null): DomainFacts {
  return {
    routing: {
      status: "mx",
      hosts: [{ host: `mx.${domain}`, priority: 10, ips: [ip] }],
      nameServers: [`ns1.${domain}`],
      addresses: [],
    },
    createdAt,
  };
}
