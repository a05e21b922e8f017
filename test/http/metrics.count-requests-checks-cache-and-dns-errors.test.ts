import { afterEach, expect, it } from "vitest";
import { sampleRecord } from "../../harness/sample-record.js";
import type { CacheOutcome } from "../../src/service/checking/checker.js";
import { fakeChecker, type HttpFixture, openHttpFixture } from "./helpers.js";

/** `/metrics` open on the app, as with METRICS_PUBLIC=on. */
const OPEN = { token: null };

let fixture: HttpFixture;
afterEach(() => fixture.close());

it("exposes requests by route and status, check latency, cache outcomes and DNS errors", async () => {
  const answers: [CacheOutcome, string][] = [
    ["miss", "DNS timeout"],
    ["hit", "DNS timeout"],
    ["hit", "Public free provider"],
    ["stale", "DNS failure"],
  ];
  const checker = fakeChecker(() => {
    const [cache, reason] = answers.shift() ?? ["hit", "Looks okay"];
    return { record: sampleRecord({ reason }), cache };
  });
  fixture = await openHttpFixture({ checker, metricsRoute: OPEN });
  const { secret } = await fixture.newKey();
  for (let i = 0; i < 3; i++) {
    await fixture.app.inject({
      method: "POST",
      url: "/v2",
      headers: { authorization: `Bearer ${secret}` },
      payload: { domain: "example.com" },
    });
  }
  await fixture.app.inject({ url: "/?domain=example.com", headers: { "x-gateway-key": secret } });
  await fixture.app.inject({ url: "/?domain=example.com" });
  await fixture.app.inject({ url: "/nowhere/a@b.example" });

  const response = await fixture.app.inject({ url: "/metrics" });
  expect(response.statusCode).toBe(200);
  expect(response.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = response.body;
  expect(text).toContain('mailrisk_http_requests_total{method="POST",route="/v2/",status="200"} 3');
  expect(text).toContain('mailrisk_http_requests_total{method="GET",route="/",status="200"} 1');
  expect(text).toContain('mailrisk_http_requests_total{method="GET",route="/",status="401"} 1');
  expect(text).toContain('mailrisk_http_requests_total{method="GET",route="unmatched",status="404"} 1');
  expect(text).not.toContain("a@b.example");
  expect(text).toContain('mailrisk_record_cache_total{outcome="hit"} 2');
  expect(text).toContain('mailrisk_record_cache_total{outcome="miss"} 1');
  expect(text).toContain('mailrisk_record_cache_total{outcome="stale"} 1');
  expect(text).toContain('mailrisk_dns_errors_total{reason="DNS timeout"} 1');
  expect(text).not.toContain('mailrisk_dns_errors_total{reason="DNS failure"}');
  expect(text).toMatch(/mailrisk_check_duration_seconds_count\{cache="hit"\} 2/);
  expect(text).toContain("mailrisk_process_cpu_user_seconds_total");
});

it("shows how full the checker's bounded queues are, read at each scrape", async () => {
  const load = {
    lookupsRunning: 64,
    lookupsWaiting: 7,
    refreshes: 32,
    dnsInFlight: 180,
    dnsWaiting: 0,
    observationsDropped: 3,
  };
  fixture = await openHttpFixture({ checker: { ...fakeChecker(), load: () => load }, metricsRoute: OPEN });
  const text = (await fixture.app.inject({ url: "/metrics" })).body;
  expect(text).toContain('mailrisk_lookups{state="running"} 64');
  expect(text).toContain('mailrisk_lookups{state="waiting"} 7');
  expect(text).toContain("mailrisk_background_refreshes 32");
  expect(text).toContain('mailrisk_dns_queries{state="in_flight"} 180');
  expect(text).toContain('mailrisk_dns_queries{state="waiting"} 0');
  expect(text).toContain("mailrisk_observations_dropped_total 3");
  load.observationsDropped = 5;
  load.lookupsWaiting = 0;
  const later = (await fixture.app.inject({ url: "/metrics" })).body;
  expect(later).toContain("mailrisk_observations_dropped_total 5");
  expect(later).toContain('mailrisk_lookups{state="waiting"} 0');
});

it("keeps the counters of two apps apart", async () => {
  fixture = await openHttpFixture({ metricsRoute: OPEN });
  const other = await openHttpFixture({ metricsRoute: OPEN });
  try {
    await fixture.app.inject({ url: "/healthz" });
    const mine = (await fixture.app.inject({ url: "/metrics" })).body;
    const theirs = (await other.app.inject({ url: "/metrics" })).body;
    expect(mine).toContain('mailrisk_http_requests_total{method="GET",route="/healthz",status="200"} 1');
    expect(theirs).not.toContain('route="/healthz"');
  } finally {
    await other.close();
  }
});
