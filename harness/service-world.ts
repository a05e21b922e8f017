/**
 * The world a whole-service test runs in, started and stopped in one call: DNS on
 * loopback, a fresh test database, and `mailrisk serve` as users run it (one process, or
 * several instances on the same database), on a base environment plus the test's own.
 *
 *   let world: ServiceWorld;
 *   beforeAll(async () => {
 *     world = await startServiceWorld({ zones: mailZones([DOMAIN], "own-server"), env: { ADMIN_TOKEN } });
 *   }, 60_000);
 *   afterAll(async () => {
 *     if (world) expect(await world.stop()).toEqual([0]);
 *   });
 *
 * A start-up that fails part-way stops what it had started before it throws.
 */
import { createTestDatabase, type DatabaseKind, type TestDatabase } from "./databases.js";
import { type DnsTestServer, startDnsServer } from "./dns-server.js";
import {
  type LoopbackNetwork,
  type LoopbackNetworkOptions,
  startLoopbackNetwork,
} from "./loopback-network.js";
import { type ServiceProcess, startServiceProcess } from "./service-process.js";
import type { Zones } from "./zones.js";

/**
 * The environment on top of the world's base: a value of `undefined` takes the base's
 * variable away (the service's default holds).
 */
export type WorldEnv = Record<string, string | undefined>;

/** Where the service's DNS comes from. */
export type WorldDns =
  /** A loopback DNS server on these zones, started and closed with the world. */
  | { zones: Zones }
  /** A DNS server the test started and closes itself (say, to restart it with other answers). */
  | { dns: DnsTestServer }
  /**
   * The loopback network of loopback-network.ts (a DNS fixture, RDAP and WHOIS servers),
   * started and closed with the world; its `env` is the base (domain ages looked up there).
   */
  | { network: LoopbackNetworkOptions };

export type ServiceWorldOptions = WorldDns & {
  /** The database's kind (default `sqlite`). */
  database?: DatabaseKind;
  /** Runs on the new, empty database before any service starts. */
  prepare?: (database: TestDatabase) => Promise<void>;
  /** `serve --workers N` (default 1). */
  workers?: number;
  /** How many processes of `serve` on the same database and environment, started one after another (default 1). */
  instances?: number;
  /** The test's own variables, on top of the base. */
  env?: WorldEnv;
  /** Runs the built `dist/` (default: as harness/service-process.ts decides). */
  built?: boolean;
};

export interface ServiceWorld {
  dns: DnsTestServer;
  /** The loopback network, when the world started one. */
  network: LoopbackNetwork | undefined;
  database: TestDatabase;
  /**
   * The environment every service of the world runs on (also for the CLI as a process of
   * its own): DATABASE_URL, DNS_SERVERS, DNS_TIMEOUT_MS=1000 and AGE_LOOKUP=off (or the
   * network's `env`), then the test's own.
   */
  env: Record<string, string>;
  /** The first service. */
  service: ServiceProcess;
  /** Every service the world started, in order. */
  services: ServiceProcess[];
  /** Another `serve` on the world's environment plus `env`, stopped with the world. */
  startService(options?: { workers?: number; env?: WorldEnv }): Promise<ServiceProcess>;
  /**
   * Stops every service one after another (SIGCONT first, in case a test froze it, then
   * SIGTERM), closes what the world started and drops the database; the services' exit
   * codes, in order. Whatever fails, the rest still happens; the first failure is thrown.
   */
  stop(): Promise<(number | null)[]>;
}

/** The base environment for a DNS server of the test's: short DNS deadlines, no domain ages. */
const DNS_BASE = { DNS_TIMEOUT_MS: "1000", AGE_LOOKUP: "off" };

function merge(base: Record<string, string>, own: WorldEnv = {}): Record<string, string> {
  const env = { ...base };
  for (const [name, value] of Object.entries(own)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

function stopService(service: ServiceProcess): Promise<number | null> {
  const { child } = service;
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGCONT");
  return service.stop();
}

export async function startServiceWorld(options: ServiceWorldOptions): Promise<ServiceWorld> {
  let ownDns: DnsTestServer | undefined;
  let network: LoopbackNetwork | undefined;
  let database: TestDatabase | undefined;
  const services: ServiceProcess[] = [];

  let stopping: Promise<(number | null)[]> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      const codes: (number | null)[] = [];
      for (const service of services) codes.push(await stopService(service));
      const failures: unknown[] = [];
      for (const step of [() => ownDns?.close(), () => network?.close(), () => database?.drop()]) {
        try {
          await step();
        } catch (failure) {
          failures.push(failure);
        }
      }
      if (failures.length > 0) throw failures[0];
      return codes;
    })();
    return stopping;
  };

  try {
    let dns: DnsTestServer;
    let base: Record<string, string>;
    if ("network" in options) {
      network = await startLoopbackNetwork(options.network);
      dns = network.dns;
      base = network.env;
    } else {
      dns = "dns" in options ? options.dns : await startDnsServer(options.zones);
      if ("zones" in options) ownDns = dns;
      base = { DNS_SERVERS: dns.address, ...DNS_BASE };
    }
    const db = await createTestDatabase(options.database ?? "sqlite");
    database = db;
    await options.prepare?.(db);
    const env = merge({ ...base, DATABASE_URL: db.url }, options.env);
    const startService = async (more: { workers?: number; env?: WorldEnv } = {}) => {
      const service = await startServiceProcess({
        workers: more.workers ?? options.workers ?? 1,
        env: merge(env, more.env),
        ...(options.built === undefined ? {} : { built: options.built }),
      });
      services.push(service);
      return service;
    };
    for (let i = 0; i < (options.instances ?? 1); i++) await startService();
    return {
      dns,
      network,
      database: db,
      env,
      service: services[0] as ServiceProcess,
      services,
      startService,
      stop,
    };
  } catch (error) {
    // The start-up's failure is the one to report.
    await stop().catch(() => undefined);
    throw error;
  }
}
