/**
 * Writes test/file-seconds.json (the suite's start order, test/sequencer.ts) from a
 * Vitest JSON report: each file's seconds from its start to its end, files of half a
 * second or more, rounded to a tenth. `npm run test:timings` runs the suite and this.
 *
 *     tsx scripts/file-seconds.ts <report.json>
 */
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import { FILE_SECONDS } from "../test/sequencer.js";

interface Report {
  testResults: { name: string; startTime: number; endTime: number }[];
}

const [reportFile] = process.argv.slice(2);
if (!reportFile) {
  console.error("usage: tsx scripts/file-seconds.ts <vitest JSON report>");
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportFile, "utf8")) as Report;
const rows = report.testResults
  .map(
    (file) =>
      [relative(process.cwd(), file.name), Math.round((file.endTime - file.startTime) / 100) / 10] as const,
  )
  .filter(([, seconds]) => seconds >= 0.5)
  .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
writeFileSync(FILE_SECONDS, `${JSON.stringify(Object.fromEntries(rows), null, 2)}\n`);
console.log(`${FILE_SECONDS}: ${rows.length} files of half a second or more`);
