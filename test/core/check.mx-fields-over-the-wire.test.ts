/**
 * The record's MX fields exactly as docs/api.md "The record" defines them, from real DNS answers of the
 * loopback server: preferred MX (lowest priority, ties by name) and its first IPv4 (else
 * IPv6), all hosts by priority with all their addresses, the A/AAAA fallback, and empty
 * fields for null MX, NXDOMAIN, no data, SERVFAIL and timeouts. Also the IDN path: a
 * U-label input is looked up and recorded as its A-label.
 *
 * @room shared: its one bound on time is written for a quiet machine and stretched by the
 * machine's pace that stretched the resolver's deadline (engine-over-the-wire.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CheckRecord } from "../../src/core/record.js";
import { type EngineOverTheWire, startEngine } from "./engine-over-the-wire.js";

let engine: EngineOverTheWire;

beforeAll(async () => {
  engine = await startEngine();
});
afterAll(() => engine.close());

type MxFields = Pick<
  CheckRecord,
  "mx_host" | "mx_ip" | "mx_info" | "mx_fallback" | "mx_hosts" | "mx_ips" | "mx_priorities"
>;

function mxFields(record: CheckRecord): MxFields {
  const { mx_host, mx_ip, mx_info, mx_fallback, mx_hosts, mx_ips, mx_priorities } = record;
  return { mx_host, mx_ip, mx_info, mx_fallback, mx_hosts, mx_ips, mx_priorities };
}

function pointer(host: string, priority: number): string {
  return `Using MX pointer ${host} from DNS with priority: ${priority}`;
}

describe("MX records: the preferred host, ties by name", () => {
  it("lists every host by priority, ties by name, with all their addresses", async () => {
    // The zone lists them in the order 10, 1, 5 (alt2), 5 (alt1), 10.
    expect(mxFields(await engine.check("google-hosted.test"))).toEqual({
      mx_host: "aspmx.l.google.com",
      mx_ip: "192.0.2.10",
      mx_info: pointer("aspmx.l.google.com", 1),
      mx_fallback: false,
      mx_hosts: [
        "aspmx.l.google.com",
        "alt1.aspmx.l.google.com",
        "alt2.aspmx.l.google.com",
        "alt3.aspmx.l.google.com",
        "alt4.aspmx.l.google.com",
      ],
      mx_ips: [
        "192.0.2.10",
        "192.0.2.11",
        "2001:db8::10",
        "192.0.2.12",
        "2001:db8::12",
        "192.0.2.13",
        "2001:db8::13",
        "192.0.2.14",
        "2001:db8::14",
        "192.0.2.15",
        "2001:db8::15",
      ],
      mx_priorities: {
        "aspmx.l.google.com": 1,
        "alt1.aspmx.l.google.com": 5,
        "alt2.aspmx.l.google.com": 5,
        "alt3.aspmx.l.google.com": 10,
        "alt4.aspmx.l.google.com": 10,
      },
    });
  });

  it.each([
    // [domain, preferred host, its first address, all hosts in order] — zones list the later name first.
    ["tie.test", "mx-a.tie.test", "198.51.100.61", ["mx-a.tie.test", "mx-b.tie.test", "backup.tie.test"]],
    ["inbound-parse.test", "mxa.mailgun.org", "203.0.113.137", ["mxa.mailgun.org", "mxb.mailgun.org"]],
  ])("breaks the equal-priority tie of %s by name", async (domain, host, ip, hosts) => {
    const record = await engine.check(domain);
    expect(record.mx_host).toBe(host);
    expect(record.mx_ip).toBe(ip);
    expect(record.mx_info).toBe(pointer(host, 10));
    expect(record.mx_hosts).toEqual(hosts);
  });

  it("orders by number, not by the order DNS answered (12, 37, 85)", async () => {
    const record = await engine.check("cf-routed.test");
    expect(record.mx_hosts).toEqual([
      "route1.mx.cloudflare.net",
      "route2.mx.cloudflare.net",
      "route3.mx.cloudflare.net",
    ]);
    expect(record.mx_priorities).toEqual({
      "route1.mx.cloudflare.net": 12,
      "route2.mx.cloudflare.net": 37,
      "route3.mx.cloudflare.net": 85,
    });
    expect(record.mx_ips).toEqual(["203.0.113.132", "203.0.113.133", "203.0.113.134"]);
  });

  it("gives the IPv6 address when the preferred host has no IPv4", async () => {
    const record = await engine.check("ipv6-only-mx.test");
    expect([record.mx_host, record.mx_ip, record.mx_ips]).toEqual([
      "mx6.ipv6-only-mx.test",
      "2001:db8:80::25",
      ["2001:db8:80::25"],
    ]);
  });

  it("uses the domain's own address when it is its own MX host", async () => {
    const record = await engine.check("mx-is-domain.test");
    expect([record.mx_host, record.mx_ip, record.mx_fallback]).toEqual([
      "mx-is-domain.test",
      "198.51.100.110",
      false,
    ]);
  });

  it("keeps a preferred host that does not resolve, with no address of its own", async () => {
    expect(mxFields(await engine.check("unresolvable-mx.test"))).toEqual({
      mx_host: "mx.unresolvable-mx.test",
      mx_ip: "",
      mx_info: pointer("mx.unresolvable-mx.test", 10),
      mx_fallback: false,
      mx_hosts: ["mx.unresolvable-mx.test", "mx2.unresolvable-mx.test"],
      mx_ips: ["198.51.100.71"],
      mx_priorities: { "mx.unresolvable-mx.test": 10, "mx2.unresolvable-mx.test": 20 },
    });
  });

  it("names the MX hosts of a domain none of whose hosts exists, and says so", async () => {
    expect(mxFields(await engine.check("dangling-mx-pair.test"))).toEqual({
      mx_host: "mx.dangling-mx-pair.test",
      mx_ip: "",
      mx_info: `${pointer("mx.dangling-mx-pair.test", 10)}, but DNS says no MX host exists (NXDOMAIN)`,
      mx_fallback: false,
      mx_hosts: ["mx.dangling-mx-pair.test", "gone.aspmx.l.google.com"],
      mx_ips: [],
      mx_priorities: { "mx.dangling-mx-pair.test": 10, "gone.aspmx.l.google.com": 20 },
    });
  });

  it("names the MX host of a domain whose host addresses time out, and says the look-up timed out", async () => {
    const record = await engine.check("mx-host-timeout.test");
    expect(record).toMatchObject({
      mx_host: "mx.mx-host-timeout.test",
      mx_ip: "",
      mx_fallback: false,
      mx_hosts: ["mx.mx-host-timeout.test"],
      mx_ips: [],
      reason: "DNS timeout",
    });
    expect(record.mx_info).toMatch(
      /^Using MX pointer mx\.mx-host-timeout\.test from DNS with priority: 10\b/,
    );
    expect(record.mx_info).toMatch(/time/);
  });
});

describe("no MX record: the A/AAAA fallback", () => {
  it("uses the domain itself with all its addresses, IPv4 first", async () => {
    expect(mxFields(await engine.check("fallback.test"))).toEqual({
      mx_host: "fallback.test",
      mx_ip: "198.51.100.20",
      mx_info: "No MX record found, using domain fallback.test as fallback",
      mx_fallback: true,
      mx_hosts: ["fallback.test"],
      mx_ips: ["198.51.100.20", "2001:db8:20::1"],
      mx_priorities: { "fallback.test": 0 },
    });
  });

  it("falls back to an IPv6-only domain", async () => {
    const record = await engine.check("fallback-v6.test");
    expect([record.mx_fallback, record.mx_host, record.mx_ip, record.mx_ips]).toEqual([
      true,
      "fallback-v6.test",
      "2001:db8:160::1",
      ["2001:db8:160::1"],
    ]);
  });
});

describe("no mail routing: empty MX fields, and mx_info says why", () => {
  const EMPTY = { mx_host: "", mx_ip: "", mx_fallback: false, mx_hosts: [], mx_ips: [], mx_priorities: {} };

  it.each([
    ["null-mx.test", "null MX, although the domain has an A record", /null MX/i, "Null MX"],
    ["does-not-exist.test", "NXDOMAIN", /NXDOMAIN|does not exist/i, "NXDOMAIN"],
    ["no-mail.test", "no data: neither MX nor A/AAAA", /no MX.*no A/i, "No MX or A record"],
    ["servfail.test", "SERVFAIL", /fail/i, "DNS failure"],
    ["refused.test", "REFUSED", /fail|refused/i, "DNS failure"],
    ["timeout.test", "no answer at all", /time/i, "DNS timeout"],
    ["mx-timeout.test", "MX never answers while A does: no fallback", /time/i, "DNS timeout"],
  ])("%s (%s)", async (domain, _what, info, reason) => {
    const record = await engine.check(domain);
    const { mx_info, ...fields } = mxFields(record);
    expect(fields).toEqual(EMPTY);
    expect(mx_info).toMatch(info);
    expect(mx_info).not.toMatch(/Using MX pointer|as fallback/);
    expect(record.reason).toBe(reason);
  });

  it("answers a timed-out domain within two query deadlines", async () => {
    const started = performance.now();
    await engine.check("timeout.test");
    // 1 s on a quiet machine (a deadline of 300 ms), stretched by the pace that stretched the deadline.
    expect(performance.now() - started).toBeLessThan(engine.pace.bound(1000));
  });
});

describe("domain and base_domain", () => {
  it("records a subdomain with its registrable base domain", async () => {
    const record = await engine.check("eu.google-hosted.test");
    expect([record.domain, record.base_domain, record.mx_host]).toEqual([
      "eu.google-hosted.test",
      "google-hosted.test",
      "aspmx.l.google.com",
    ]);
  });

  it("checks an IDN as its A-label: U-label input, A-label queries and record", async () => {
    engine.server.queries.clear();
    const record = await engine.check("MÜNCHEN.de.");
    expect([record.domain, record.base_domain, record.mx_host, record.mx_ip]).toEqual([
      "xn--mnchen-3ya.de",
      "xn--mnchen-3ya.de",
      "mail.xn--mnchen-3ya.de",
      "198.51.100.50",
    ]);
    expect(engine.server.queries.count("xn--mnchen-3ya.de", { type: "MX" })).toBeGreaterThanOrEqual(1);
    expect(engine.server.queries.count("münchen.de")).toBe(0);
  });

  it("checks the domain part of an IDN address the same way", async () => {
    const record = await engine.check("info@münchen.de");
    expect([record.domain, record.mx_host, record.is_role_based_email]).toEqual([
      "xn--mnchen-3ya.de",
      "mail.xn--mnchen-3ya.de",
      true,
    ]);
  });
});
