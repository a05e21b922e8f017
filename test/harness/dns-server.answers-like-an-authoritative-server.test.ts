/**
 * The loopback authoritative DNS server the suite's look-ups go to (harness/dns-server.ts):
 * authoritative answers with the asked id, NXDOMAIN and NODATA with the zone's SOA, REFUSED
 * outside its zones, a name's delay, and the queries it counts.
 *
 * @room shared: its one bound on time is a lower bound (a delayed answer takes at least the
 * delay), which a loaded machine keeps.
 */
import { createSocket } from "node:dgram";
import { once } from "node:events";
import dnsPacket from "dns-packet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { Zones } from "../../harness/zones.js";

let server: DnsTestServer;

beforeAll(async () => {
  server = await startDnsServer(
    new Zones({
      zones: ["test"],
      names: {
        "mx1.mail.example.test": { A: ["192.0.2.1"] },
        "slow.test": { A: ["192.0.2.2"], delay: 120 },
      },
    }),
  );
});
afterAll(() => server.close());

/** One UDP query, the raw way (no c-ares in between). */
async function ask(name: string, type: "A" | "MX"): Promise<dnsPacket.DecodedPacket> {
  const socket = createSocket("udp4");
  try {
    socket.send(
      dnsPacket.encode({ type: "query", id: 4242, questions: [{ type, name }] }),
      server.port,
      "127.0.0.1",
    );
    const [message] = (await once(socket, "message")) as [Buffer];
    return dnsPacket.decode(message);
  } finally {
    socket.close();
  }
}

describe("the loopback test DNS server", () => {
  it("answers authoritatively with the asked id", async () => {
    const response = await ask("MX1.mail.example.test", "A");
    expect(response).toMatchObject({ id: 4242, rcode: "NOERROR", flag_aa: true });
    expect(response.answers).toMatchObject([{ name: "MX1.mail.example.test", type: "A", data: "192.0.2.1" }]);
  });

  it.each([
    ["an unknown name", "nobody.test", "A", "NXDOMAIN"],
    ["a known name without the type", "mx1.mail.example.test", "MX", "NOERROR"],
    ["an empty non-terminal", "mail.example.test", "A", "NOERROR"],
  ] as const)("gives %s no answer and the zone's SOA", async (_what, name, type, rcode) => {
    const response = await ask(name, type);
    expect(response).toMatchObject({ rcode });
    expect(response.answers).toEqual([]);
    expect(response.authorities).toMatchObject([{ type: "SOA", name: "test" }]);
  });

  it("refuses names outside its zones", async () => {
    expect(await ask("example.com", "A")).toMatchObject({ rcode: "REFUSED" });
  });

  it("waits the name's delay before answering", async () => {
    const started = performance.now();
    expect((await ask("slow.test", "A")).answers).toHaveLength(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  });

  it("counts queries per name, type and transport", async () => {
    server.queries.clear();
    await ask("Nobody.test", "A");
    await ask("nobody.test", "MX");
    expect(server.queries.count("nobody.test")).toBe(2);
    expect(server.queries.count("nobody.test", { type: "MX", transport: "udp" })).toBe(1);
    expect(server.queries.total).toBe(2);
  });
});
