/**
 * Which room of the suite each test file runs in (vitest.config.ts), read from what the
 * file and the test/ and harness/ modules it imports use, so that a new test lands in
 * the right room without a list to keep:
 *
 * - `apart`: holds a wall-clock bound written for a quiet machine (a file says so with
 *   `@room apart` when its text does not show it). One file at a time, after the rest.
 *   A file whose bounds are stretched by the machine's pace (`harness/machine-pace.ts`: a
 *   ratio to a baseline of the same run) holds on a loaded machine too, and goes to the
 *   room its work asks for; so does a file that says `@room shared` (its bounds are lower
 *   bounds, or ratios between times it measures itself, which a loaded machine keeps).
 *   `@room apart` keeps a file apart whatever else it does (a difference of a few
 *   milliseconds that other files' work would drown).
 * - `processes`: spawns processes (the service, the CLI, `npm start`) or drives Chromium,
 *   with no bound on time: a few files at a time, the service built once for them.
 * - `unit`: pure: no database, no app, no socket, no loopback server, no file written.
 *   `npm run test:unit`; every core.
 * - `integration`: the rest (a database, an app in process, loopback servers); every
 *   core, waiting far more than computing.
 * - `isolated`: replaces a module (`vi.mock`), so it needs modules of its own: a process
 *   per file, beside `unit` and `integration`. In every other room the files of a worker
 *   share its modules.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export type Room = "unit" | "integration" | "isolated" | "processes" | "apart";

/**
 * What a file of its own (not through an import) does that binds it to the clock: it
 * measures a time (a past instant made as `new Date(Date.now() - …)` measures nothing).
 */
const TIMED_HERE = [
  /performance\.now\(\)/,
  /(?<!new Date\()Date\.now\(\)\s*-/,
  /process\.hrtime/,
  /@room apart/,
];

/** A file that needs the machine to itself whatever else it does (a difference of a few milliseconds). */
const SAYS_APART = /@room apart\b/;

/** What a file does that makes its bounds hold on a loaded machine. */
const PACED = /harness\/machine-pace\.js["']|@room shared\b/;

/** What a file of its own does that starts processes or a browser. */
const PROCESSES_HERE = [/node:child_process/, /playwright-core/];

/** Modules whose importers start processes or browsers. */
const PROCESS_MODULES = [
  /harness\/service-process\.ts$/,
  /harness\/service-world\.ts$/,
  /harness\/instances\.ts$/,
  /harness\/live-service\.ts$/,
  /harness\/dns-server-process\.ts$/,
  /harness\/chromium\.ts$/,
  /harness\/form-browser\.ts$/,
];

/** What makes a file more than pure. */
const NOT_PURE = [
  /harness\/databases/,
  /src\/store\//,
  /openStore|buildApp|startDnsServer|startListServer|startWebhookReceiver/,
  /node:(net|http|https|dgram|child_process|worker_threads)/,
  /\b(writeFile|mkdtemp|appendFile|createWriteStream)\b/,
  /\blisten\(/,
];

/** A file that replaces a module cannot share a worker's modules with other files. */
const REPLACES_A_MODULE = /\bvi\.(mock|doMock)\(/;

const IMPORT =
  /(?:import|export)\s[^;]*?from\s+["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)|import\s+["'](\.{1,2}\/[^"']+)["']/g;

function localImports(file: string, text: string, root: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const spec = (match[1] ?? match[2] ?? match[3]) as string;
    const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
    const inside = relative(root, target);
    // Only the suite's own helpers: src/ is judged by how a test uses it, not by its imports.
    if ((inside.startsWith("test/") || inside.startsWith("harness/")) && existsSync(target)) {
      found.push(target);
    }
  }
  return found;
}

/** The room of one test file (an absolute path), given the repository's root. */
export function roomOf(testFile: string, root: string): Room {
  const own = readFileSync(testFile, "utf8");
  if (REPLACES_A_MODULE.test(own)) return "isolated";
  if (SAYS_APART.test(own)) return "apart";
  if (TIMED_HERE.some((pattern) => pattern.test(own)) && !PACED.test(own)) return "apart";
  const seen = new Set<string>([testFile]);
  const queue = [testFile];
  let pure = !NOT_PURE.some((pattern) => pattern.test(own));
  let spawns = PROCESSES_HERE.some((pattern) => pattern.test(own));
  while (queue.length > 0) {
    const file = queue.shift() as string;
    const text = file === testFile ? own : readFileSync(file, "utf8");
    if (file !== testFile) {
      if (PROCESS_MODULES.some((pattern) => pattern.test(file))) spawns = true;
      if (NOT_PURE.some((pattern) => pattern.test(text))) pure = false;
    }
    for (const next of localImports(file, text, root)) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  if (spawns) return "processes";
  return pure ? "unit" : "integration";
}

/** The test files (`*.test.ts`) under each of `dirs`, relative to root, sorted. */
export function testFiles(root: string, dirs: readonly string[]): string[] {
  return dirs
    .filter((dir) => existsSync(join(root, dir)))
    .flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
        .filter((name) => name.endsWith(".test.ts"))
        .map((name) => join(dir, name)),
    )
    .sort();
}

/** The test files under `dirs` by room, as paths relative to root. */
export function rooms(root: string, dirs: readonly string[]): Record<Room, string[]> {
  const byRoom: Record<Room, string[]> = {
    unit: [],
    integration: [],
    isolated: [],
    processes: [],
    apart: [],
  };
  for (const file of testFiles(root, dirs)) byRoom[roomOf(join(root, file), root)].push(file);
  return byRoom;
}
