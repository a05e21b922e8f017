/** `serve` without `--workers`: one worker per core but one, which the primary takes; never none. */
import { expect, it } from "vitest";
import { defaultWorkerCount } from "../src/cluster.js";

it.each([
  [1, 1],
  [2, 1],
  [3, 2],
  [8, 7],
])("on %i cores serves with %i worker(s)", (cores, workers) => {
  expect(defaultWorkerCount(cores)).toBe(workers);
});
