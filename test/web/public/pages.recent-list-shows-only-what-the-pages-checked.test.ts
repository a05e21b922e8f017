/**
 * The recently checked list of the public home page is the pages' own: a domain a keyed
 * caller checked through `POST /v2/`, the gateway route or `POST /v2/bulk` never appears
 * on it, while one checked on a result page does. `RECENT_FROM_API=on` lets every check
 * in, as before. The real app and checker over the loopback DNS server.
 */

import { afterEach, expect, it } from "vitest";
import { configWith } from "../../../harness/config.js";
import { type DnsTestServer, startDnsServer } from "../../../harness/dns-server.js";
import { Zones } from "../../../harness/zones.js";
import { buildApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config.js";
import type { CachingChecker } from "../../../src/service/checking/cached-checker.js";
import { createChecker } from "../../../src/service/checking/create-checker.js";
import type { Store } from "../../../src/store/index.js";
import { openStore } from "../../../src/store/index.js";

const CHECKED_ON_A_PAGE = "public-bakery.com";
const CHECKED_BY_KEY = ["acme-confidential-merger.com", "gateway-secret.com", "bulk-secret-one.com"];

function world(): Zones {
  const names = Object.fromEntries(
    [CHECKED_ON_A_PAGE, ...CHECKED_BY_KEY].map((domain) => [domain, { MX: [`10 mx.${domain}`] }]),
  );
  return new Zones({ zones: ["com"], names });
}

let close: (() => Promise<void>) | undefined;
afterEach(() => close?.());

async function homePageAfterChecks(env: Record<string, string>): Promise<string> {
  const dns: DnsTestServer = await startDnsServer(world());
  const store: Store = await openStore({ dialect: "sqlite", path: ":memory:" });
  await store.migrate();
  const config = loadConfig({
    TEST_NAMES: "on",
    DNS_SERVERS: dns.address,
    DNS_TIMEOUT_MS: "500",
    AGE_LOOKUP: "off",
    LIST_SOURCES: "off",
    DATABASE_URL: "sqlite::memory:",
    ...env,
  });
  const checker: CachingChecker = createChecker({ config, store });
  const app = await buildApp({ store, checker, logger: false, config: configWith() });
  close = async () => {
    await app.close();
    await checker.drain();
    await store.close();
    await dns.close();
  };
  const { secret } = await store.keys.createKey({ plan: "unlimited", now: new Date() });
  const bearer = { authorization: `Bearer ${secret}` };
  const answers = await Promise.all([
    app.inject({ method: "POST", url: "/v2/", headers: bearer, payload: { domain: CHECKED_BY_KEY[0] } }),
    app.inject({ url: `/?domain=${CHECKED_BY_KEY[1]}`, headers: { "x-gateway-key": secret } }),
    app.inject({ method: "POST", url: "/v2/bulk", headers: bearer, payload: { items: [CHECKED_BY_KEY[2]] } }),
    app.inject({ url: `/domain/${CHECKED_ON_A_PAGE}`, headers: { accept: "text/html" } }),
  ]);
  expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200]);
  await checker.drain(); // the observer has written what it saw
  const home = await app.inject({ url: "/", headers: { accept: "text/html" } });
  expect(home.statusCode).toBe(200);
  return home.body;
}

it("shows only the domains checked through the pages by default", async () => {
  const home = await homePageAfterChecks({});
  expect(home).toContain(CHECKED_ON_A_PAGE);
  for (const domain of CHECKED_BY_KEY) expect(home).not.toContain(domain);
});

it("shows the API's and bulk checks too with RECENT_FROM_API=on", async () => {
  const home = await homePageAfterChecks({ RECENT_FROM_API: "on" });
  for (const domain of [CHECKED_ON_A_PAGE, ...CHECKED_BY_KEY]) expect(home).toContain(domain);
});
