/**
 * The result page shows the evidence behind the verdict as a short list under it
 * (docs/api.md "Result pages"): the engine's own items over loopback DNS, each with what it added to
 * the risk, inside the verdict's card before the flags; everything escaped.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../../../harness/dns-server.js";
import { type LiveService, openLiveService } from "../../../harness/live-service.js";
import { sampleRecord } from "../../../harness/sample-record.js";
import { fixtureZones } from "../../../harness/zones.js";
import { fakeChecker, openHttpFixture } from "../../http/helpers.js";

const HTML = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

describe("over the wire", () => {
  let dns: DnsTestServer;
  let service: LiveService;
  beforeAll(async () => {
    dns = await startDnsServer(fixtureZones("engine"));
    service = await openLiveService({ dnsAddress: dns.address, clock: () => new Date() });
  });
  afterAll(async () => {
    await service?.close();
    await dns?.close();
  });

  it("lists the items under the verdict, before the flags, with what each added", async () => {
    const response = await service.app.inject({ url: "/domain/burner-three.test", headers: HTML });
    expect(response.statusCode).toBe(200);
    const body = response.body;
    const verdict = body.slice(body.indexOf('<section class="card verdict'), body.indexOf("</section>"));
    expect(verdict).toContain('<h2 class="why" id="evidence-heading">Why</h2>');
    const items = [...verdict.matchAll(/<li>(.*?)<\/li>/g)].map((match) => match[1]);
    expect(items).toHaveLength(3);
    expect(items[0]).toMatch(
      /^Its MX host .* belongs to the disposable service .*<span class="adds" title="added to the risk">\+90<\/span>$/,
    );
    expect(items.slice(1).every((item) => item?.endsWith("+3</span>"))).toBe(true);
    expect(body.indexOf('id="evidence-heading"')).toBeLessThan(body.indexOf('id="flags-heading"'));
  });

  it("shows an item that added nothing to the risk without a share", async () => {
    const response = await service.app.inject({ url: "/domain/gmail.com", headers: HTML });
    expect(response.body).toContain("gmail.com is on the list of free mailbox providers as Gmail.</li>");
    expect(response.body).not.toContain('class="adds"');
  });
});

it("escapes every item", async () => {
  const fixture = await openHttpFixture({
    checker: fakeChecker((input) => ({
      record: sampleRecord({ domain: input.domain, base_domain: input.domain }),
      cache: "hit",
      explain: () => [
        {
          kind: "typo",
          detail: '<script>alert("x")</script> & more',
          suggestions: ["<b>"],
          risk: 10,
        },
      ],
    })),
  });
  try {
    const response = await fixture.app.inject({ url: "/domain/shop.example", headers: HTML });
    expect(response.body).toContain(
      '<li>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more <span class="adds" title="added to the risk">+10</span></li>',
    );
    expect(response.body).not.toContain("<script>");
  } finally {
    await fixture.close();
  }
});
