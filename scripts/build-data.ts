/**
 * Builds the generated lists in data/ from the disposable-domain packages of docs/api.md "Data sources" and
 * the curated lists in data/curated/ (see scripts/data/build-lists.ts for the rules).
 *
 *   npm run data:build    write data/disposable.txt and data/forwarders.txt, print the report
 *   npm run data:check    exit 1 if regenerating would change any generated file (CI)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readCuratedLists } from "../src/data/curated.js";
import { DATA_DIR } from "../src/data/read-domain-lists.js";
import { type BuildReport, buildLists, missingInstitutionalSuffixes } from "./data/build-lists.js";
import { missingInstitutions } from "./data/institutions.js";
import { packageVersion, readDisposablePackages } from "./data/packages.js";

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

function describe(report: BuildReport): string {
  const names = (list: string[]) => (list.length === 0 ? "" : `\n    ${list.join(", ")}`);
  return [
    `merged ${report.merged} distinct names from the packages (${report.invalid.length} invalid entries dropped${report.invalid.length ? `: ${report.invalid.join(", ")}` : ""})`,
    `removed as public suffix: ${report.publicSuffix.length}${names(report.publicSuffix)}`,
    `removed as reserved name (RFC 2606/6761): ${report.reserved.length}${names(report.reserved)}`,
    `removed as known-good (known-good, academic/government suffix, named institution, curated provider, parking service): ${report.knownGood.length}${names(report.knownGood)}`,
    `moved to forwarders: ${report.movedToForwarders.length}${names(report.movedToForwarders)}`,
    `result: ${report.disposable} disposable entries, ${report.forwarders} forwarder entries`,
  ].join("\n");
}

function main(check: boolean): number {
  const curated = readCuratedLists(DATA_DIR);
  const result = buildLists({
    packages: readDisposablePackages(),
    curated,
    tldtsVersion: packageVersion("tldts"),
  });
  const problems = [
    ...result.problems,
    ...missingInstitutionalSuffixes(curated),
    ...missingInstitutions(curated),
  ];
  if (problems.length > 0) {
    console.error(`data/curated/ is inconsistent:\n  ${problems.join("\n  ")}`);
    return 1;
  }
  const files = Object.entries(result.files);
  if (check) {
    const stale = files
      .filter(([file, content]) => readOrNull(join(DATA_DIR, file)) !== content)
      .map(([f]) => f);
    if (stale.length > 0) {
      console.error(
        `data/ is out of date: regenerating would change ${stale.map((f) => `data/${f}`).join(", ")}.\n` +
          "Run `npm run data:build` and commit the result.",
      );
      return 1;
    }
    console.log(`data/ is up to date (${files.map(([f]) => `data/${f}`).join(", ")})`);
    return 0;
  }
  for (const [file, content] of files) writeFileSync(join(DATA_DIR, file), content);
  console.log(describe(result.report));
  console.log(`wrote ${files.map(([f]) => `data/${f}`).join(", ")}`);
  return 0;
}

process.exitCode = main(process.argv.includes("--check"));
