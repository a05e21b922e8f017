/**
 * The loopback DNS server (dns-server.ts) in a child process of its own, so a benchmark's
 * load does not share the server's core: `startDnsServerProcess(fixture)` forks this
 * module, sends it the zone fixture and gets back the server's address; `stats()` asks
 * the child for the queries it has answered and the CPU time it has used.
 */
import { type ChildProcess, fork } from "node:child_process";
import { setPriority } from "node:os";
import { fileURLToPath } from "node:url";
import { startDnsServer } from "./dns-server.js";
import { type ZoneFixture, Zones } from "./zones.js";

export interface DnsServerStats {
  /** Queries answered since the server started. */
  queries: number;
  /** CPU time (user + system) of the server process since it started, in µs. */
  cpuMicros: number;
}

export interface DnsServerProcess {
  /** `127.0.0.1:port`, as resolvers take it. */
  address: string;
  stats(): Promise<DnsServerStats>;
  /** Closes the server; the child then exits. */
  stop(): void;
}

type ServerMessage = { address: string } | DnsServerStats;

const MODULE = fileURLToPath(import.meta.url);

export interface DnsServerProcessOptions {
  /**
   * Nice value of the child (default: the parent's): a benchmark that measures a service's
   * latency on the same small machine lowers the priority of what stands in for the network.
   */
  niceness?: number;
}

/** Forks a process serving `fixture` on a loopback UDP and TCP port; runs under the parent's loader (tsx). */
export async function startDnsServerProcess(
  fixture: ZoneFixture,
  options: DnsServerProcessOptions = {},
): Promise<DnsServerProcess> {
  const child: ChildProcess = fork(MODULE, [], { execArgv: process.execArgv });
  if (options.niceness !== undefined && child.pid !== undefined) setPriority(child.pid, options.niceness);
  const ask = (message: "stats" | ZoneFixture) =>
    new Promise<ServerMessage>((resolve, reject) => {
      // One listener of each per question: a long benchmark asks for stats many times.
      const exited = (code: number | null) => reject(new Error(`DNS server process exited with ${code}`));
      child.once("exit", exited);
      child.once("message", (answer) => {
        child.off("exit", exited);
        resolve(answer as ServerMessage);
      });
      child.send(message);
    });
  const { address } = (await ask(fixture)) as { address: string };
  return {
    address,
    stats: async () => (await ask("stats")) as DnsServerStats,
    stop: () => {
      child.send("stop");
    },
  };
}

/** Child process: the loopback DNS server for the fixture it is sent; answers stats requests. */
function serveDns(): void {
  process.once("disconnect", () => process.exit(0));
  process.once("message", async (fixture: ZoneFixture) => {
    const server = await startDnsServer(new Zones(fixture));
    process.send?.({ address: server.address } satisfies ServerMessage);
    process.on("message", async (message) => {
      if (message === "stats") {
        const cpu = process.cpuUsage();
        process.send?.({
          queries: server.queries.total,
          cpuMicros: cpu.user + cpu.system,
        } satisfies ServerMessage);
      } else if (message === "stop") {
        await server.close();
        process.exit(0);
      }
    });
  });
}

if (process.argv[1] === MODULE && process.send !== undefined) serveDns();
