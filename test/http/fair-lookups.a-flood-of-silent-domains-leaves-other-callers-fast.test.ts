/**
 * Fair look-ups, as an attacker would try them: 300 concurrent requests for domains
 * whose name servers never answer, from one address (127.0.0.2, real sockets), while a
 * keyed caller on another address (127.0.0.3) checks fresh domains through `POST /v2/`.
 *
 * - The flood on the result pages: the pages draw on a budget of their own and one
 *   address on half of it, so the API's checks stay fast: median under 300 ms (they
 *   took 5.3 s when pages and API shared one budget).
 * - The flood through the API with another key: within the API's budget one key holds
 *   at most half the look-ups, so the other key's checks stay as fast.
 *
 * A real service process over the loopback DNS server, which drops every query for the
 * silent domains (the DNS deadline is the default 1.5 s). The 300 ms and the half second
 * the flood is given are a quiet machine's figures, stretched by the machine's pace
 * (harness/machine-pace.ts).
 */
import { request } from "node:http";
import { afterEach, expect, it } from "vitest";
import { createKeyIn } from "../../harness/databases.js";
import { startPace } from "../../harness/machine-pace.js";
import { type ServiceWorld, startServiceWorld } from "../../harness/service-world.js";
import { type NameFixture, Zones } from "../../harness/zones.js";

const FLOOD = 300;
const API_CHECKS = 30;
const SILENT = Array.from({ length: FLOOD }, (_, i) => `silent-shop-${i}.com`);
const FRESH = Array.from({ length: API_CHECKS }, (_, i) => `fresh-customer-${i}.com`);

function zones(): Zones {
  const names: Record<string, NameFixture> = {};
  for (const domain of SILENT) names[domain] = { behaviour: "drop" };
  for (const domain of FRESH) {
    names[domain] = { MX: [`10 mx.${domain}`], NS: ["ns1.fresh-dns.net"] };
    names[`mx.${domain}`] = { A: ["192.0.2.25"] };
  }
  return new Zones({ zones: ["com", "net"], names });
}

/** One request on a connection of its own from `localAddress`: its status and how long it took. */
function send(
  url: string,
  localAddress: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
  signal?: AbortSignal,
): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: options.method ?? "GET", headers: options.headers, agent: false, localAddress, signal },
      (response) => {
        response.resume();
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, ms: performance.now() - started }),
        );
      },
    );
    outgoing.on("error", reject);
    outgoing.end(options.body);
  });
}

let world: ServiceWorld | undefined;
afterEach(async () => {
  world?.service.child.kill("SIGKILL");
  await world?.stop();
});

type Flood = (url: string, domain: string, signal: AbortSignal) => Promise<unknown>;

/**
 * The median of the API checks of FRESH from 127.0.0.3 with `secret`, while `flood` sends
 * every SILENT domain from 127.0.0.2; and the machine's pace from the flood's start.
 */
async function apiMedianDuring(url: string, secret: string, flood: Flood) {
  const dns = (world as ServiceWorld).dns;
  const pace = startPace();
  const stop = new AbortController();
  const flooding = SILENT.map((domain) => flood(url, domain, stop.signal).catch(() => undefined));
  // Let the flood take every look-up it can.
  await new Promise((resolve) => setTimeout(resolve, pace.bound(500)));
  expect(dns.queries.count(SILENT[0] as string, { type: "MX" })).toBeGreaterThan(0);

  const api: number[] = [];
  for (const domain of FRESH) {
    const { status, ms } = await send(`${url}/v2/`, "127.0.0.3", {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ domain }),
    });
    expect(status).toBe(200);
    api.push(ms);
  }
  // The flood is still waiting on its silent domains while the API was answered.
  const pending = SILENT.filter((domain) => dns.queries.count(domain, { type: "MX" }) === 0).length;
  expect(pending).toBeGreaterThan(FLOOD / 2);
  stop.abort();
  await Promise.all(flooding);
  return {
    median: [...api].sort((a, b) => a - b)[Math.floor(api.length / 2)] as number,
    pace,
  };
}

async function startWorld(): Promise<ServiceWorld> {
  world = await startServiceWorld({
    zones: zones(),
    env: {
      DNS_TIMEOUT_MS: undefined, // the default deadline
      // The flood is about look-ups: neither the page limiter nor the connection cap stops it first.
      PAGE_RATE_LIMIT: "1000",
      MAX_CONNECTIONS_PER_CLIENT: "1000",
    },
  });
  return world;
}

it("keeps keyed checks of fresh domains under 300 ms at the median while one address floods the pages", async () => {
  const { database, service } = await startWorld();
  const secret = await createKeyIn(database.location, "fair", 1_000_000);
  const { median, pace } = await apiMedianDuring(service.url, secret, (url, domain, signal) =>
    send(`${url}/domain/${domain}`, "127.0.0.2", { headers: { accept: "text/html" } }, signal),
  );
  expect(median).toBeLessThan(pace.bound(300));
}, 60_000);

it("keeps one key's checks under 300 ms at the median while another key floods the API", async () => {
  const { database, service } = await startWorld();
  const flooder = await createKeyIn(database.location, "flooder", 1_000_000);
  const secret = await createKeyIn(database.location, "customer", 1_000_000);
  const { median, pace } = await apiMedianDuring(service.url, secret, (url, domain, signal) =>
    send(
      `${url}/v2/`,
      "127.0.0.2",
      {
        method: "POST",
        headers: { authorization: `Bearer ${flooder}`, "content-type": "application/json" },
        body: JSON.stringify({ domain }),
      },
      signal,
    ),
  );
  expect(median).toBeLessThan(pace.bound(300));
}, 60_000);
