/**
 * The order the suite starts its files in (vitest.config.ts `sequence.sequencer`): as
 * vitest's own (groups in order; in a group, room after room, so that a worker's files
 * share one room's modules), but in each room the files that took longest in a measured
 * run first (`test/file-seconds.json`), then the others, larger files first. A file that
 * waits a quarter of a minute for a retry or a browser then starts with its room, instead
 * of running nearly alone at the end of the run. Vitest orders by its cache of an earlier
 * run, which a clean clone (CI) does not have; without it, by size alone.
 *
 * `npm run test:timings` measures the whole suite and writes the file anew.
 */
import { readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Seconds each file took in a measured run, by path from the repository's root. */
export const FILE_SECONDS = "test/file-seconds.json";

function measured(root: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(join(root, FILE_SECONDS), "utf8")) as Record<string, number>;
  } catch {
    return {};
  }
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { root } = this.ctx.config;
    const seconds = measured(root);
    const keyed = files.map((spec) => ({
      spec,
      group: spec.project.config.sequence.groupOrder,
      room: spec.project.name,
      seconds: seconds[relative(root, spec.moduleId)] ?? 0,
      size: statSync(spec.moduleId).size,
    }));
    keyed.sort(
      (a, b) => a.group - b.group || a.room.localeCompare(b.room) || b.seconds - a.seconds || b.size - a.size,
    );
    return keyed.map(({ spec }) => spec);
  }
}
