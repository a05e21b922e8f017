/**
 * A resolver that answers NXDOMAIN for everything (a captive portal, a filtering
 * resolver, a wrong DNS_SERVERS) must not make every domain "Domain does not exist" for
 * a day: the canary (MX of big providers) finds it broken, checks answer `DNS failure`
 * (valid, briefly cached), `/readyz` answers 503 `dns_unavailable` and `/metrics` says so.
 * Real DNS over the wire to loopback servers; a real SQLite store.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configWith, TEST_NAMES_ON } from "../../../harness/config.js";
import { type DnsTestServer, startDnsServer } from "../../../harness/dns-server.js";
import { startRdapServer, startWhoisServer, writeBootstrap } from "../../../harness/loopback-registries.js";
import { mailZones } from "../../../harness/mail-zones.js";
import { Zones } from "../../../harness/zones.js";
import { buildApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config.js";
import { parseInput } from "../../../src/core/input.js";
import { NodeDnsResolver } from "../../../src/dns/node-dns-resolver.js";
import type { Checker } from "../../../src/service/checking/checker.js";
import { CANARY_DOMAINS, createChecker } from "../../../src/service/checking/create-checker.js";
import { GuardedResolver, ResolverHealth } from "../../../src/service/checking/resolver-health.js";
import { openStore, type Store } from "../../../src/store/index.js";

let lying: DnsTestServer;
let sound: DnsTestServer;
let silent: DnsTestServer;
let registries: { bootstrap: string; whois: string; close(): Promise<void> };

beforeAll(async () => {
  lying = await startDnsServer(new Zones({ zones: ["."], names: {} }));
  sound = await startDnsServer(mailZones([...CANARY_DOMAINS, "example-shop.com"], "own-server"));
  const dropped = Object.fromEntries(
    CANARY_DOMAINS.map((domain) => [domain, { behaviour: "drop" as const }]),
  );
  silent = await startDnsServer(new Zones({ zones: ["."], names: dropped }));
  const rdap = await startRdapServer(() => ({ status: 404 }));
  const whois = await startWhoisServer(() => "No match\r\n");
  registries = {
    bootstrap: await writeBootstrap({ com: rdap.baseUrl }),
    whois: whois.address,
    close: async () => {
      await Promise.all([rdap.close(), whois.close()]);
    },
  };
});
afterAll(async () => {
  await Promise.all([lying.close(), sound.close(), silent.close(), registries.close()]);
});

function health(server: DnsTestServer, timeoutMs = 1000): ResolverHealth {
  const resolver = new NodeDnsResolver({ servers: [server.address], timeoutMs });
  return new ResolverHealth({ resolver, canaries: CANARY_DOMAINS });
}

describe("ResolverHealth", () => {
  it("is ok when a canary has MX, broken when every canary is denied, unreachable when none answers", async () => {
    expect((await health(sound).probe()).state).toBe("ok");
    const broken = await health(lying).probe();
    expect(broken.state).toBe("broken");
    expect(broken.canaries).toEqual({
      "gmail.com": "nxdomain",
      "outlook.com": "nxdomain",
      "yahoo.com": "nxdomain",
    });
    expect((await health(silent, 200).probe()).state).toBe("unreachable");
  });

  it("lets NXDOMAIN through from a sound resolver and turns it into a failure from a broken one", async () => {
    const soundResolver = new NodeDnsResolver({ servers: [sound.address], timeoutMs: 1000 });
    const fromSound = new GuardedResolver(soundResolver, health(sound));
    expect(await fromSound.mx("missing.example-shop.com")).toEqual({ ok: false, code: "nxdomain" });
    const lyingResolver = new NodeDnsResolver({ servers: [lying.address], timeoutMs: 1000 });
    const fromLiar = new GuardedResolver(lyingResolver, health(lying));
    expect(await fromLiar.mx("gmail.com")).toEqual({ ok: false, code: "failure" });
    expect(await fromLiar.a("anything.example")).toEqual({ ok: false, code: "failure" });
  });
});

describe("a checker behind a resolver that denies everything", () => {
  let store: Store;
  let checker: Checker;

  beforeAll(async () => {
    store = await openStore({ dialect: "sqlite", path: ":memory:" });
    await store.migrate();
    const config = loadConfig({
      TEST_NAMES: "on",
      DNS_SERVERS: lying.address,
      DNS_TIMEOUT_MS: "500",
      RDAP_BOOTSTRAP_FILE: registries.bootstrap,
      WHOIS_SERVER: registries.whois,
    });
    checker = createChecker({ config, store });
  });
  afterAll(async () => {
    await checker.drain();
    await store.close();
  });

  it("answers DNS failure, valid, for a big provider and for any other domain", async () => {
    for (const input of ["gmail.com", "someone@outlook.com", "example-shop.com"]) {
      const parsed = parseInput(input, TEST_NAMES_ON);
      if (!parsed.ok) throw new Error(input);
      const { record } = await checker.check(parsed.input);
      expect([record.domain, record.valid, record.block, record.reason]).toEqual([
        parsed.input.domain,
        true,
        false,
        "DNS failure",
      ]);
    }
  });

  it("makes /readyz answer 503 dns_unavailable and /metrics carry the canary's state", async () => {
    const app = await buildApp({
      store,
      checker,
      logger: false,
      config: configWith(),
      metricsRoute: { token: null },
    });
    try {
      const ready = await app.inject({ url: "/readyz" });
      expect(ready.statusCode).toBe(503);
      expect(ready.headers["retry-after"]).toBe("5");
      expect(ready.json()).toMatchObject({ status: 503, code: "dns_unavailable" });
      expect(ready.json().detail).toContain("gmail.com: nxdomain");
      const metrics = (await app.inject({ url: "/metrics" })).body;
      expect(metrics).toContain('mailrisk_dns_resolver_state{state="broken"} 1');
      expect(metrics).toContain('mailrisk_dns_resolver_state{state="ok"} 0');
    } finally {
      await app.close();
    }
  });
});
