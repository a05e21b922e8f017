/**
 * Writes the docs tables made from the code (scripts/docs-tables/generate.ts) into
 * docs/api.md and docs/verdicts.md.
 *
 *   npm run docs:tables              rewrite the tables between their markers
 *   npm run docs:tables -- --check   exit 1 when a file differs from the code
 *
 * test/docs.tables-match-the-code.test.ts runs the check with every test run.
 */
import { writeFileSync } from "node:fs";
import { generatedFiles, ROOT } from "./docs-tables/generate.js";

function main(check: boolean): number {
  const stale = generatedFiles().filter(({ current, expected }) => current !== expected);
  for (const { file, expected } of stale) {
    if (check) process.stderr.write(`${file} differs from the code: run npm run docs:tables\n`);
    else {
      writeFileSync(new URL(file, ROOT), expected);
      process.stdout.write(`wrote ${file}\n`);
    }
  }
  return check && stale.length > 0 ? 1 : 0;
}

process.exitCode = main(process.argv.includes("--check"));
