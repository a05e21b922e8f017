/**
 * DNS trouble is loud: the server logs the resolver canary's state at start and every
 * time it changes, a warning naming DNS_SERVERS when the resolver fails (no answer, or
 * it denies that gmail.com, outlook.com and yahoo.com exist), info when it answers
 * again. Once in a real server process started on a resolver that does not answer, once
 * in this process through the checker the server wires, its resolver stopped and started.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../../../harness/dns-server.js";
import { serverArguments } from "../../../harness/entry-points.js";
import { mailZones } from "../../../harness/mail-zones.js";
import { loadConfig } from "../../../src/config.js";
import { CANARY_DOMAINS, createChecker } from "../../../src/service/checking/create-checker.js";
import { describeResolverState } from "../../../src/service/checking/resolver-health.js";
import { openStore, type Store } from "../../../src/store/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "mailrisk-dns-log-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

interface LogLine {
  level: number;
  msg: string;
  dnsState?: string;
  dnsServers?: string;
}

it("a server started on a resolver that does not answer warns at start, naming DNS_SERVERS", async () => {
  // Nothing listens on this port: every canary query fails at once or times out.
  const dns = await startDnsServer(mailZones([...CANARY_DOMAINS], "own-server"));
  const address = dns.address;
  await dns.close();
  const child = spawn(process.execPath, serverArguments(), {
    env: {
      ...process.env,
      DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}`,
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "info",
      DNS_SERVERS: address,
      DNS_TIMEOUT_MS: "300",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const warning = () =>
    output
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as LogLine)
      .find((line) => line.dnsState !== undefined);
  try {
    const deadline = Date.now() + 20_000;
    while (warning() === undefined && Date.now() < deadline && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const logged = warning();
    expect(logged, output).toMatchObject({
      level: 40,
      dnsState: "unreachable",
      dnsServers: `DNS_SERVERS=${address}`,
    });
    expect(logged?.msg).toMatch(/^the DNS resolver does not answer \(gmail\.com: /);
    expect(logged?.msg).toContain(`Resolver: DNS_SERVERS=${address}; set DNS_SERVERS to a working one`);
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}, 30_000);

let dns: DnsTestServer | undefined;
let store: Store | undefined;
afterEach(async () => {
  await dns?.close();
  await store?.close();
  dns = undefined;
  store = undefined;
});

it("logs info at start when the resolver answers, a warning when it stops, info when it is back", async () => {
  const zones = mailZones([...CANARY_DOMAINS], "own-server");
  dns = await startDnsServer(zones);
  const { port, address } = dns;
  const lines: LogLine[] = [];
  const logger = pino(
    { level: "info" },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(
          ...String(chunk)
            .split("\n")
            .filter(Boolean)
            .map((line) => JSON.parse(line) as LogLine),
        );
        done();
      },
    }),
  );
  store = await openStore({ dialect: "sqlite", path: ":memory:" });
  await store.migrate();
  const config = loadConfig({
    TEST_NAMES: "on",
    DNS_SERVERS: address,
    DNS_TIMEOUT_MS: "300",
    AGE_LOOKUP: "off",
  });
  const checker = createChecker({ config, store, logger });
  const states = () =>
    lines.filter((line) => line.dnsState !== undefined).map((line) => [line.level, line.dnsState]);
  try {
    await expect.poll(states).toEqual([[30, "ok"]]);
    expect(lines.at(-1)?.msg).toBe(`the DNS resolver answers (DNS_SERVERS=${address})`);

    await checker.resolverHealth?.probe(); // the same state again: nothing more
    expect(states()).toEqual([[30, "ok"]]);

    await dns.close();
    await checker.resolverHealth?.probe();
    expect(states()).toEqual([
      [30, "ok"],
      [40, "unreachable"],
    ]);

    dns = await startDnsServer(zones, { port });
    await checker.resolverHealth?.probe();
    expect(states()).toEqual([
      [30, "ok"],
      [40, "unreachable"],
      [30, "ok"],
    ]);
    expect(lines.at(-1)?.msg).toMatch(/^the DNS resolver answers again/);
  } finally {
    await checker.drain();
  }
});

it("says what a resolver that denies the canaries does, and how to change it", () => {
  const report = {
    state: "broken" as const,
    checkedAt: new Date(),
    canaries: { "gmail.com": "nxdomain", "outlook.com": "nxdomain", "yahoo.com": "nodata" },
  };
  expect(describeResolverState(report, undefined, "DNS_SERVERS=192.0.2.53")).toBe(
    'the DNS resolver denies that gmail.com, outlook.com, yahoo.com exist (gmail.com: nxdomain, outlook.com: nxdomain, yahoo.com: nodata): every check answers "DNS timeout" or "DNS failure" while this lasts, and /readyz answers 503 dns_unavailable. Resolver: DNS_SERVERS=192.0.2.53; set DNS_SERVERS to a working one (e.g. DNS_SERVERS=1.1.1.1,8.8.8.8)',
  );
});
