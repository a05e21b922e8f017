/**
 * The layers import in one direction (docs/architecture.md), enforced by Biome's
 * noRestrictedImports rules in biome.json, which `npm test` runs over the tree. This
 * test proves the rules bite: it lints probe files, one import each, laid out like the
 * repository in a temporary directory with the project's own biome.json (a few Biome
 * runs for all of them, not one a probe).
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = new URL("../", import.meta.url).pathname;
const BIOME = join(ROOT, "node_modules/.bin/biome");

/** [importing file, import specifier, allowed] */
const CASES: [string, string, boolean][] = [
  ["src/core/probe.ts", "./record.js", true],
  ["src/core/probe.ts", "../store/types.js", false],
  ["src/core/probe.ts", "../config.js", false],
  ["src/core/probe.ts", "node:fs", false],
  ["src/core/signals/probe.ts", "../verdict.js", true],
  ["src/core/signals/probe.ts", "../../service/checking/checker.js", false],
  ["src/dns/probe.ts", "../core/dns.js", true],
  ["src/dns/probe.ts", "../store/types.js", false],
  ["src/data/probe.ts", "../core/list-interfaces.js", true],
  ["src/data/probe.ts", "../service/checking/checker.js", false],
  ["src/store/probe.ts", "../core/record.js", true],
  ["src/store/probe.ts", "../service/checking/checker.js", false],
  ["src/service/checking/probe.ts", "../../store/types.js", true],
  ["src/service/checking/probe.ts", "../../app.js", false],
  ["src/service/jobs/probe.ts", "../checking/check-many.js", true],
  ["src/service/probe.ts", "../store/types.js", true],
  ["src/service/csv/probe.ts", "../checking/check-many.js", true],
  ["src/service/csv/probe.ts", "../../core/record.js", true],
  ["src/service/csv/probe.ts", "../checking/checker.js", false],
  ["src/service/csv/probe.ts", "../jobs/job-runner.js", false],
  ["src/service/csv/probe.ts", "../housekeeping-schedule.js", false],
  ["src/service/csv/probe.ts", "../../store/types.js", false],
  ["src/service/csv/probe.ts", "../../cli/output.js", false],
  ["src/service/shared/probe.ts", "./one-at-a-time.js", true],
  ["src/service/shared/probe.ts", "../../core/input.js", true],
  ["src/service/shared/probe.ts", "../checking/checker.js", false],
  ["src/service/shared/probe.ts", "../../store/types.js", false],
  ["src/service/lists/probe.ts", "../../operator/keys.js", false],
  ["src/store/probe.ts", "../operator/keys.js", false],
  ["src/operator/probe.ts", "../service/checking/checker.js", true],
  ["src/operator/probe.ts", "../store/types.js", true],
  ["src/operator/probe.ts", "../app.js", false],
  ["src/operator/probe.ts", "../cli/context.js", false],
  ["src/http/admin/probe.ts", "../../operator/keys.js", true],
  ["src/cli/probe.ts", "../operator/keys.js", true],
  ["src/http/probe.ts", "../service/checking/checker.js", true],
  ["src/http/probe.ts", "../data/domain-lists.js", false],
  ["src/http/probe.ts", "../web/site-plugin.js", false],
  ["src/http/probe.ts", "../app.js", false],
  ["src/http/probe.ts", "../page-kit/layout.js", true],
  ["src/http/probe.ts", "../web/member/page-session.js", false],
  ["src/http/routes/probe.ts", "../../web/desk/desk-plugin.js", false],
  ["src/web/probe.ts", "../http/typed-app.js", true],
  ["src/web/member/probe.ts", "../../operator/keys.js", true],
  ["src/web/member/probe.ts", "../../http/run-check.js", true],
  ["src/web/member/probe.ts", "../../http/routes/job-routes.js", true],
  ["src/web/member/probe.ts", "../../app.js", false],
  ["src/web/member/probe.ts", "../../page-kit/layout.js", true],
  ["src/web/desk/probe.ts", "../../http/admin/admin-plugin.js", false],
  ["src/web/desk/probe.ts", "../../http/routes/bulk-check.js", false],
  ["src/web/public/probe.ts", "../../dns/node-dns-resolver.js", false],
  ["src/page-kit/probe.ts", "./layout.js", true],
  ["src/page-kit/probe.ts", "../core/record.js", true],
  ["src/page-kit/probe.ts", "../http/typed-app.js", false],
  ["src/page-kit/probe.ts", "../service/checking/checker.js", false],
  ["src/page-kit/probe.ts", "../web/member/page-session.js", false],
  ["src/page-kit/probe.ts", "../web/site-plugin.js", false],
  ["src/cli/probe.ts", "../page-kit/layout.js", false],
  ["src/cli/probe.ts", "../service/checking/create-checker.js", true],
  ["src/cli/probe.ts", "../http/http-problem.js", false],
  ["src/cli/probe.ts", "../store/index.js", true],
  ["src/cli/probe.ts", "../store/private-files.js", false],
  ["src/http/probe.ts", "../store/index.js", true],
  ["src/http/probe.ts", "../store/plans-types.js", false],
  ["src/http/admin/probe.ts", "../../store/secrets.js", false],
  ["src/web/probe.ts", "../store/index.js", true],
  ["src/web/desk/probe.ts", "../../store/errors.js", false],
  ["src/web/probe.ts", "../data/domain-lists.js", false],
  ["src/config-table.ts", "./store/database-url.js", true],
  ["src/config-table.ts", "./service/checking/checker.js", false],
  ["src/config.ts", "./app.js", false],
  ["src/app.ts", "./web/site-plugin.js", true],
  ["src/app.ts", "./store/index.js", true],
  ["src/app.ts", "./store/plans-types.js", false],
  ["src/app.ts", "./cli/context.js", false],
  ["src/store/probe.ts", "../config-table.js", false],
  ["src/registry/probe.ts", "../config-table.js", false],
  ["src/core/probe.ts", "../config-table.js", false],
  ["clients/typescript/src/probe.ts", "./types.js", true],
  ["clients/typescript/src/probe.ts", "../../../src/core/record.js", false],
];

let dir: string;
/** Each case's verdict: the Biome diagnostics of its probe, empty when the import is allowed. */
const verdicts = new Map<number, string[]>();

/**
 * Where case `index` writes its probe: a file of its own where the name is free (a
 * `probe.ts` under the folder's rules), the file itself where the rules name one.
 */
function probePath(file: string, index: number): string {
  return file.endsWith("/probe.ts") ? file.replace(/probe\.ts$/, `probe-${index}.ts`) : file;
}

/**
 * Lints every probe with Biome, a few runs in all: each run writes the probes whose
 * paths are free in it and reads its diagnostics as JSON.
 */
async function lintAll(): Promise<void> {
  let pending = CASES.map((probe, index) => ({
    index,
    path: probePath(probe[0], index),
    specifier: probe[1],
  }));
  while (pending.length > 0) {
    const taken = new Set<string>();
    const round = pending.filter((probe) => !taken.has(probe.path) && taken.add(probe.path));
    pending = pending.filter((probe) => !round.includes(probe));
    for (const { path, specifier } of round) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(
        join(dir, path),
        `import type { Probe } from "${specifier}";\n\nexport type Probed = Probe;\n`,
      );
    }
    const args = ["lint", "--vcs-enabled=false", "--reporter=json", "--max-diagnostics=none"];
    const stdout = await run(BIOME, [...args, ...round.map((probe) => probe.path)], { cwd: dir }).then(
      (result) => result.stdout,
      (error: { stdout: string }) => error.stdout,
    );
    const report = JSON.parse(stdout) as {
      diagnostics: { category: string; message: string; location: { path: string } }[];
    };
    for (const { index, path } of round) {
      const own = report.diagnostics.filter((diagnostic) => diagnostic.location.path === path);
      verdicts.set(
        index,
        own.map((diagnostic) => `${diagnostic.category}: ${diagnostic.message}`),
      );
      await rm(join(dir, path));
    }
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mailrisk-layers-"));
  await copyFile(join(ROOT, "biome.json"), join(dir, "biome.json"));
  await lintAll();
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("import direction", () => {
  it.each(CASES.map((probe, index) => [...probe, index] as const))(
    "%s importing %s is allowed: %s",
    (_file, _specifier, allowed, index) => {
      const diagnostics = verdicts.get(index);
      expect(diagnostics, "the probe was linted").toBeDefined();
      expect(diagnostics?.length === 0, diagnostics?.join("\n")).toBe(allowed);
      if (!allowed) expect(diagnostics?.join("\n")).toContain("noRestrictedImports");
    },
  );
});
