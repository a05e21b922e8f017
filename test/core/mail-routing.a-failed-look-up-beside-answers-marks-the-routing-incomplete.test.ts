/**
 * A look-up that fails for the time being beside others that answered (the name
 * servers, the domain's AAAA, one MX host's addresses) leaves the status to what was
 * found and marks the routing `incomplete`, so the record cache keeps it only 60 s
 * (src/service/checking/freshness.ts); a routing whose status already says the failure, or
 * where nothing failed, carries no mark.
 */

import { describe, expect, it } from "vitest";
import { TEST_NAMES_ON } from "../../harness/config.js";
import { type DnsAnswer, type DnsResolver, dnsFailure, type MxAnswer } from "../../src/core/dns.js";
import { lookupMailRouting } from "../../src/core/mail-routing.js";

type Answers = Record<string, DnsAnswer<unknown>>;

/** Answers `"<TYPE> <name>"` from the table; anything else is NODATA. */
function resolver(answers: Answers): DnsResolver {
  const ask = <T>(type: string, name: string) =>
    Promise.resolve((answers[`${type} ${name}`] ?? dnsFailure("nodata")) as DnsAnswer<T>);
  return {
    mx: (name) => ask<MxAnswer>("MX", name),
    a: (name) => ask<string>("A", name),
    aaaa: (name) => ask<string>("AAAA", name),
    ns: (name) => ask<string>("NS", name),
  };
}

const ok = <T>(...records: T[]): DnsAnswer<T> => ({ ok: true, records });

/** shop.test: two MX hosts that answer, its name servers and its own address. */
const WORKING: Answers = {
  "MX shop.test": ok<MxAnswer>(
    { exchange: "mx1.shop.test", priority: 10 },
    { exchange: "mx2.shop.test", priority: 20 },
  ),
  "A mx1.shop.test": ok("192.0.2.1"),
  "A mx2.shop.test": ok("192.0.2.2"),
  "NS shop.test": ok("ns1.shop.test"),
  "A shop.test": ok("192.0.2.9"),
};

describe("lookupMailRouting marks a routing incomplete", () => {
  it("not when every look-up answered", async () => {
    const routing = await lookupMailRouting("shop.test", "shop.test", resolver(WORKING), TEST_NAMES_ON);
    expect(routing.status).toBe("mx");
    expect(routing).not.toHaveProperty("incomplete");
  });

  it.each([
    ["the name servers", { "NS shop.test": dnsFailure("servfail") }],
    ["the domain's AAAA", { "AAAA shop.test": dnsFailure("timeout") }],
    ["one MX host's address", { "A mx2.shop.test": dnsFailure("refused") }],
  ])("when %s failed beside answers", async (_what, failed) => {
    const routing = await lookupMailRouting(
      "shop.test",
      "shop.test",
      resolver({ ...WORKING, ...failed }),
      TEST_NAMES_ON,
    );
    expect(routing.status).toBe("mx");
    expect(routing.incomplete).toBe(true);
  });

  it("when the domain's AAAA failed beside a fallback to its A", async () => {
    const routing = await lookupMailRouting(
      "shop.test",
      "shop.test",
      resolver({ "A shop.test": ok("192.0.2.9"), "AAAA shop.test": dnsFailure("servfail") }),
      TEST_NAMES_ON,
    );
    expect([routing.status, routing.incomplete]).toEqual(["fallback", true]);
  });

  it("not when the status says the failure already", async () => {
    const routing = await lookupMailRouting(
      "shop.test",
      "shop.test",
      resolver({
        ...WORKING,
        "A mx1.shop.test": dnsFailure("timeout"),
        "A mx2.shop.test": dnsFailure("timeout"),
      }),
      TEST_NAMES_ON,
    );
    expect(routing.status).toBe("dns_timeout");
    expect(routing).not.toHaveProperty("incomplete");
  });

  it("not for NXDOMAIN or NODATA, which are answers", async () => {
    const routing = await lookupMailRouting(
      "shop.test",
      "shop.test",
      resolver({
        ...WORKING,
        "NS shop.test": dnsFailure("nxdomain"),
        "A mx2.shop.test": dnsFailure("nxdomain"),
      }),
      TEST_NAMES_ON,
    );
    expect(routing).not.toHaveProperty("incomplete");
  });
});
