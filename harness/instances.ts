/**
 * Beside several instances of the service sharing one database (service-world.ts
 * `startServiceWorld({ instances })`): the CLI as a process of its own, and the checks
 * the multi-instance tests make on each instance.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { cliArguments } from "./entry-points.js";
import { requestOnNewConnection, type ServiceProcess } from "./service-process.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** `mailrisk <args>` as a process of its own on `env`: its exit code and what it printed on stdout. */
export function runCli(args: readonly string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [...cliArguments(), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  return new Promise<{ code: number | null; stdout: string }>((resolve) =>
    child.once("exit", (code) => resolve({ code, stdout })),
  );
}

/** `POST /v2/` of `body` with the key, on a connection of its own: the status and the answer. */
export async function checkOn(instance: ServiceProcess, secret: string, body: Record<string, unknown>) {
  const { status, text } = await requestOnNewConnection(`${instance.url}/v2/`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}` },
    body,
  });
  return { status, record: JSON.parse(text) as Record<string, unknown> };
}

/**
 * Checks `body` on `instance` every 50 ms until `holds` says the answer is the awaited
 * one, or `giveUpAfterMs` after `since` (a caller that stretches its bound by the
 * machine's pace stretches this too): the last answer and how long after `since` it came.
 */
export async function firstAnswerOn(
  instance: ServiceProcess,
  secret: string,
  body: Record<string, unknown>,
  holds: (record: Record<string, unknown>) => boolean,
  since: number,
  giveUpAfterMs = 5000,
) {
  for (;;) {
    const { record } = await checkOn(instance, secret, body);
    const after = Date.now() - since;
    if (holds(record) || after > giveUpAfterMs) return { record, after };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
