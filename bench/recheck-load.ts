/**
 * The load of `bench:recheck`'s HTTP passes, generated in a child process of its own at a
 * lower priority (a higher nice value), the way a client on another machine would: on a
 * small machine the service, its DNS server and the load generator share the cores, and
 * a load generator at the service's own priority takes the CPU the service needs to
 * answer `/healthz` in time. Each pass sends `POST /v2/` once for every domain,
 * `inFlight` at a time, and fails unless every answer is 200.
 */
import { fork } from "node:child_process";
import { once } from "node:events";
import { setPriority } from "node:os";
import { fileURLToPath } from "node:url";

const MODULE = fileURLToPath(import.meta.url);

interface Target {
  url: string;
  key: string;
  inFlight: number;
  domains: readonly string[];
}

type Answer = { seconds: number } | { error: string };

export interface RecheckLoad {
  /** One pass over every domain; the seconds it took. */
  pass(): Promise<number>;
  stop(): Promise<void>;
}

export async function startRecheckLoad(target: Target, niceness: number): Promise<RecheckLoad> {
  const child = fork(MODULE, [], { execArgv: process.execArgv });
  if (child.pid !== undefined) setPriority(child.pid, niceness);
  child.send(target);
  return {
    pass: async () => {
      child.send("pass");
      const [answer] = (await Promise.race([
        once(child, "message"),
        once(child, "exit").then(([code]) => Promise.reject(new Error(`load process exited with ${code}`))),
      ])) as [Answer];
      if ("error" in answer) throw new Error(answer.error);
      return answer.seconds;
    },
    stop: async () => {
      child.disconnect();
      if (child.exitCode === null) await once(child, "exit");
    },
  };
}

/** Seconds one pass of `POST /v2/` over every domain takes, `inFlight` at a time. */
async function pass({ url, key, inFlight, domains }: Target): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < domains.length) {
      const domain = domains[next++] as string;
      const response = await fetch(`${url}/v2/`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/x-www-form-urlencoded" },
        body: `domain=${domain}`,
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`POST /v2/ ${domain}: ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return (performance.now() - started) / 1000;
}

function generateLoad(): void {
  let target: Target | undefined;
  process.once("disconnect", () => process.exit(0));
  process.on("message", (message: Target | "pass") => {
    if (message !== "pass") {
      target = message;
      return;
    }
    if (!target) throw new Error("no target before the first pass");
    pass(target).then(
      (seconds) => process.send?.({ seconds } satisfies Answer),
      (error: unknown) => process.send?.({ error: String(error) } satisfies Answer),
    );
  });
}

if (process.argv[1] === MODULE && process.send !== undefined) generateLoad();
