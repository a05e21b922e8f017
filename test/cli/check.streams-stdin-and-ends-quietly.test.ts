/**
 * `mailrisk check -` as a person runs it (docs/api.md "Running it"): the real CLI in a child
 * process (`node --import tsx src/cli/main.ts`), its DNS the loopback authoritative
 * server with the engine zones, its registries loopback RDAP and WHOIS servers, its
 * database a temporary SQLite file. Inputs are checked as they arrive, so the first
 * line is out before stdin closes; a reader that goes away (`| head -1`) ends the run
 * with exit code 0 and nothing on stderr; stderr is silent when it is not a terminal,
 * unless `--progress` asks for progress and the summary. The resolver's time-out is
 * paced (check-world.ts): no name here trips it on a loaded machine.
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cliArguments } from "../../harness/entry-points.js";
import { type CheckWorld, startCheckWorld } from "./check-world.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const CLI = cliArguments();

let world: CheckWorld;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  world = await startCheckWorld();
  dir = await mkdtemp(join(tmpdir(), "mailrisk-cli-"));
  env = { ...world.env, PATH: process.env.PATH, DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}` };
  // check uses the server's database and never creates one: migrate does.
  expect(await exitOf(spawnCli(["migrate"]))).toBe(0);
});
afterAll(async () => {
  await world.close();
  await rm(dir, { recursive: true, force: true });
});

function spawnCli(args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, env });
}

async function exitOf(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const [code] = (await once(child, "exit")) as [number | null];
  return code;
}

it("writes the first line before stdin is closed", async () => {
  const child = spawnCli(["check", "-", "--json"]);
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  child.stdin.write("gmail.com\n");
  const first = await lines.next();
  expect(child.stdin.writableEnded).toBe(false);
  expect(JSON.parse(first.value as string)).toMatchObject({ input: "gmail.com", domain: "gmail.com" });
  child.stdin.write("\ntie.test\n");
  const second = await lines.next();
  expect(JSON.parse(second.value as string)).toMatchObject({ input: "", code: "missing_input" });
  child.stdin.end("null-mx.test");
  const rest: string[] = [];
  for (let line = await lines.next(); !line.done; line = await lines.next()) rest.push(line.value);
  expect(rest.map((line) => JSON.parse(line).input)).toEqual(["tie.test", "null-mx.test"]);
  expect(await exitOf(child)).toBe(1);
  expect(stderr).toBe("");
});

it("exits 0 with nothing on stderr when the reader goes away (| head -1)", async () => {
  const err = join(dir, "head.stderr");
  const code = join(dir, "head.code");
  const cli = [process.execPath, ...CLI].map((word) => `'${word}'`).join(" ");
  const script =
    `yes gmail.com | ${cli} check - --json 2>'${err}' | head -1;` + ` echo "\${PIPESTATUS[1]}" >'${code}'`;
  const { stdout } = await promisify(execFile)("bash", ["-c", script], { cwd: ROOT, env, timeout: 30_000 });
  expect(JSON.parse(stdout)).toMatchObject({ input: "gmail.com", valid: true });
  expect((await readFile(code, "utf8")).trim()).toBe("0");
  expect(await readFile(err, "utf8")).toBe("");
});

it("writes progress and a summary to a non-terminal stderr only with --progress", async () => {
  const run = async (args: string[]) => {
    const child = spawnCli(["check", "-", "--json", ...args]);
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdout.resume();
    child.stdin.end("gmail.com\nmailinator.com\nnot a domain\ntie.test\n");
    return { code: await exitOf(child), stderr };
  };
  const quiet = await run([]);
  expect(quiet).toEqual({ code: 1, stderr: "" });
  const loud = await run(["--progress"]);
  expect(loud.code).toBe(1);
  expect(loud.stderr).toMatch(/\d+ checked \| \d+\/s \| block \d+ {2}allow \d+ {2}invalid \d+/);
  expect(loud.stderr).toMatch(
    /mailrisk: checked 4 inputs in [\d.]+ s \(\d+\/s\): block 1, allow 2, invalid 1\n$/,
  );
});
