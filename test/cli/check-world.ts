/**
 * What the `mailrisk check` tests share: the loopback authoritative DNS server with the
 * engine zones, loopback RDAP and WHOIS servers (so nothing leaves the machine), the
 * environment that points a `mailrisk` process at them, and `check()`, which runs the
 * command in this process on a given database with captured output. Its resolver's and
 * registries' time-outs are short, so that a silent name costs the tests little; they are
 * a quiet machine's, stretched by the machine's pace (harness/machine-pace.ts), so that
 * only a silent name trips them on a loaded machine.
 */
import { createTestCli } from "../../harness/cli-context.js";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import {
  type RdapReply,
  startRdapServer,
  startWhoisServer,
  writeBootstrap,
} from "../../harness/loopback-registries.js";
import { startPace } from "../../harness/machine-pace.js";
import { fixtureZones } from "../../harness/zones.js";
import { run } from "../../src/cli/check-command.js";
import { loadConfig } from "../../src/config.js";

export interface CheckRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CheckWorld {
  dns: DnsTestServer;
  /** DNS_SERVERS, the registries, short deadlines and TEST_NAMES, for `loadConfig` or a child process. */
  env: Record<string, string>;
  /** `mailrisk check <args>` in this process on the database at `databaseUrl`, reading `stdin`. */
  check(databaseUrl: string, args: string[], stdin?: string): Promise<CheckRun>;
  close(): Promise<void>;
}

export async function startCheckWorld(
  rdapReply: (domain: string) => RdapReply = () => ({ status: 404 }),
): Promise<CheckWorld> {
  const dns = await startDnsServer(fixtureZones("engine"));
  const rdap = await startRdapServer(rdapReply);
  const whois = await startWhoisServer(() => "No match\r\n");
  const pace = startPace();
  /** `quietMs` stretched by the pace, within what the configuration takes (at most 60 s). */
  const paced = (quietMs: number) => String(Math.min(60_000, Math.round(pace.bound(quietMs))));
  const env = {
    DNS_SERVERS: dns.address,
    DNS_TIMEOUT_MS: paced(300),
    RDAP_BOOTSTRAP_FILE: await writeBootstrap(
      Object.fromEntries(["test", "com", "de"].map((tld) => [tld, rdap.baseUrl])),
    ),
    WHOIS_SERVER: whois.address,
    AGE_TIMEOUT_MS: paced(2000),
    TEST_NAMES: "on",
  };
  return {
    dns,
    env,
    async check(databaseUrl, args, stdin = "") {
      const cli = createTestCli(databaseUrl, stdin);
      const config = loadConfig({ ...env, DATABASE_URL: databaseUrl });
      const code = await run(args, { ...cli.ctx, config });
      return { code, stdout: cli.stdout(), stderr: cli.stderr() };
    },
    close: async () => {
      await Promise.all([dns.close(), rdap.close(), whois.close()]);
    },
  };
}
