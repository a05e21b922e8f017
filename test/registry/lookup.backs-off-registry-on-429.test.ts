import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  fixture,
  type LoopbackRdap,
  type LoopbackWhois,
  manualClock,
  type RdapReply,
  startRdapServer,
  startWhoisServer,
  writeBootstrap,
} from "../../harness/loopback-registries.js";
import { createDomainAgeLookup } from "../../src/service/checking/domain-age.js";

let limitedRdap: LoopbackRdap;
let otherRdap: LoopbackRdap;
let whois: LoopbackWhois;
let bootstrapFile: string;
/** What the limited registry answers next. */
let limitedReply: RdapReply;

beforeAll(async () => {
  limitedRdap = await startRdapServer(() => limitedReply);
  otherRdap = await startRdapServer(() => ({ status: 200, body: fixture("rdap/registered.json") }));
  whois = await startWhoisServer(() => fixture("whois/verisign-creation-date.txt"));
  bootstrapFile = await writeBootstrap({ limited: limitedRdap.baseUrl, other: otherRdap.baseUrl });
});

afterAll(async () => {
  await limitedRdap.close();
  await otherRdap.close();
  await whois.close();
});

describe("a registry that answers 429", () => {
  it("is left alone for its Retry-After while WHOIS answers in its place", async () => {
    const time = manualClock("2026-11-22T12:00:00Z");
    const lookup = createDomainAgeLookup({
      bootstrapFile,
      whoisServer: whois.server,
      timeoutMs: 3000,
      clock: time.clock,
    });
    limitedReply = { status: 429, headers: { "retry-after": "120" } };

    expect(await lookup.lookup("a.limited")).toEqual({
      createdAt: new Date("1995-08-14T04:00:00Z"),
      source: "whois",
    });
    expect(limitedRdap.queries).toEqual(["a.limited"]);

    time.advance(119_000);
    expect((await lookup.lookup("b.limited"))?.source).toBe("whois");
    expect(limitedRdap.queries).toEqual(["a.limited"]);
    expect(whois.queries).toEqual(["a.limited", "b.limited"]);

    // Other registries are not affected.
    expect((await lookup.lookup("x.other"))?.source).toBe("rdap");

    time.advance(2_000);
    limitedReply = { status: 200, body: fixture("rdap/registered.json") };
    expect((await lookup.lookup("c.limited"))?.source).toBe("rdap");
    expect(limitedRdap.queries).toEqual(["a.limited", "c.limited"]);
  });

  it("is left alone for 60 s when it sends no Retry-After; unknown without a WHOIS server", async () => {
    const time = manualClock("2026-11-22T12:00:00Z");
    const lookup = createDomainAgeLookup({
      bootstrapFile,
      whoisServer: null,
      timeoutMs: 3000,
      clock: time.clock,
    });
    limitedReply = { status: 429 };
    const before = limitedRdap.queries.length;

    expect(await lookup.lookup("d.limited")).toBeNull();
    time.advance(59_000);
    expect(await lookup.lookup("e.limited")).toBeNull();
    expect(limitedRdap.queries.length).toBe(before + 1);

    time.advance(2_000);
    limitedReply = { status: 200, body: fixture("rdap/registered.json") };
    expect((await lookup.lookup("f.limited"))?.source).toBe("rdap");
    expect(limitedRdap.queries.length).toBe(before + 2);
  });
});
