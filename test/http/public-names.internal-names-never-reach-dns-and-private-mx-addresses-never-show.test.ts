/**
 * Public names only (docs/security.md), on the real engine over loopback DNS (engine
 * zones): an internal or special-use name is refused as `invalid_domain` on every way in
 * (`POST /v2/`, the gateway's `GET /`, bulk, the result page, `mailrisk check`) before any DNS query,
 * so the test's DNS server sees none; a domain whose MX hosts are on private addresses is
 * `valid: false`, and the addresses appear in no record, evidence or page.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { type LiveService, openLiveService } from "../../harness/live-service.js";
import { fixtureZones } from "../../harness/zones.js";
import { run as runCheck } from "../../src/cli/check-command.js";
import { loadConfig } from "../../src/config.js";

const HTML = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };
const INTERNAL = [
  "printer.local",
  "db.prod.internal",
  "nas.home.arpa",
  "secrets-db.corp",
  "mail.localhost",
  "inbox.invalid",
  "hidden.onion",
];

let dns: DnsTestServer;
let service: LiveService;
let database: TestDatabase;

beforeAll(async () => {
  dns = await startDnsServer(fixtureZones("engine"));
  service = await openLiveService({ dnsAddress: dns.address, clock: () => new Date() });
  database = await createTestDatabase("sqlite");
});
afterAll(async () => {
  await service?.close();
  await dns?.close();
  await database?.drop();
});
beforeEach(() => dns.queries.clear());

const api = (payload: Record<string, unknown>) =>
  service.app.inject({
    method: "POST",
    url: "/v2/",
    headers: { authorization: `Bearer ${service.secret}` },
    payload,
  });

describe("an internal or special-use name", () => {
  it.each(INTERNAL)("%s is refused on every way in, and DNS is never asked", async (name) => {
    const direct = await api({ domain: name });
    expect(direct.statusCode).toBe(400);
    expect(direct.json()).toMatchObject({ code: "invalid_domain" });
    expect(direct.json().detail).toMatch(/special-use name|not a public domain/);

    const address = await api({ email: `jane@${name}` });
    expect(address.statusCode).toBe(400);
    expect(address.json()).toMatchObject({ code: "invalid_email" });

    const gateway = await service.app.inject({
      url: `/?domain=${encodeURIComponent(name)}`,
      headers: { "x-gateway-key": service.secret },
    });
    expect(gateway.statusCode).toBe(400);
    expect(gateway.json()).toMatchObject({ code: "invalid_domain" });

    const bulk = await service.app.inject({
      method: "POST",
      url: "/v2/bulk",
      headers: { authorization: `Bearer ${service.secret}` },
      payload: { items: [name, `it@${name}`] },
    });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect(bulk.json().results).toMatchObject([
      { input: name, code: "invalid_domain" },
      { input: `it@${name}`, code: "invalid_email" },
    ]);

    const page = await service.app.inject({ url: `/domain/${name}`, headers: HTML });
    expect(page.statusCode).toBe(400);

    // Counted per name: the CLI's checker asks its resolver canaries (gmail.com …) too.
    const cli = createTestCli(database.url);
    const config = loadConfig({
      TEST_NAMES: "on",
      DNS_SERVERS: dns.address,
      AGE_LOOKUP: "off",
      DATABASE_URL: database.url,
    });
    expect(await runCheck([name, "--json"], { ...cli.ctx, config })).toBe(1);
    expect(JSON.parse(cli.stdout())).toMatchObject({ input: name, code: "invalid_domain" });
    // Nothing under the refused top-level name was asked either (a parent's NS, a host under it).
    expect(dns.queries.countUnder(name.slice(name.lastIndexOf(".") + 1))).toBe(0);
  });

  it("a public name under a real top-level domain is still looked up (the log counts)", async () => {
    expect((await api({ domain: "gmail.com" })).statusCode).toBe(200);
    expect(dns.queries.count("gmail.com")).toBeGreaterThan(0);
  });
});

describe("MX hosts on private addresses", () => {
  const PRIVATE = ["10.0.0.5", "127.0.0.1", "169.254.169.254", "10.20.30.40", "192.168.1.10"];

  function expectNoPrivateAddress(text: string): void {
    for (const address of PRIVATE) expect(text).not.toContain(address);
    expect(text).not.toMatch(/"::1"|::ffff:/);
  }

  it.each([
    ["private-mx.test", ["mail.private-mx.test"]],
    ["loopback-mx.test", ["lo.loopback-mx.test", "ll.loopback-mx.test"]],
  ])("%s is not valid, and its addresses appear nowhere", async (domain, hosts) => {
    const response = await api({ domain, explain: true });
    expect(response.statusCode, response.body).toBe(200);
    const record = response.json();
    expect(record).toMatchObject({
      valid: false,
      block: true,
      reason: "MX on a private address",
      text: "Domain does not accept email from the internet",
      mx_host: hosts[0],
      mx_hosts: hosts,
      mx_ip: "",
      mx_ips: [],
    });
    expect(record.evidence).toContainEqual(
      expect.objectContaining({ kind: "dns", finding: "mx_private", hosts }),
    );
    expectNoPrivateAddress(response.body);

    const page = await service.app.inject({ url: `/domain/${domain}`, headers: HTML });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(hosts[0]);
    expectNoPrivateAddress(page.body);
  });

  it("MX hosts named outside the public DNS are never looked up, and the domain is not valid", async () => {
    const response = await api({ domain: "internal-mx.test", explain: true });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      valid: false,
      block: true,
      reason: "MX on a private address",
      mx_hosts: ["db.prod.internal", "printer.local"],
      mx_ip: "",
      mx_ips: [],
    });
    expect(response.json().evidence).toContainEqual(
      expect.objectContaining({ kind: "dns", finding: "mx_private" }),
    );
    expect(dns.queries.count("internal-mx.test")).toBeGreaterThan(0);
    expect(dns.queries.countUnder("internal")).toBe(0);
    expect(dns.queries.countUnder("local")).toBe(0);
    for (const address of ["192.0.2.78", "192.0.2.79"]) expect(response.body).not.toContain(address);
  });

  it("one public MX host keeps the domain valid; the private host keeps its name, not its address", async () => {
    const response = await api({ domain: "half-private-mx.test", explain: true });
    const record = response.json();
    expect(record).toMatchObject({
      valid: true,
      mx_hosts: ["in.half-private-mx.test", "out.half-private-mx.test"],
      mx_ip: "",
      mx_ips: ["192.0.2.77"],
    });
    expectNoPrivateAddress(response.body);
  });
});
