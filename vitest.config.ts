import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { rooms } from "./test/projects.js";
import { LongestFirst } from "./test/sequencer.js";

const ROOT = fileURLToPath(new URL(".", import.meta.url));
const byRoom = rooms(ROOT, ["test", "clients/typescript/test"]);
/**
 * The tests with no bound on time wait more than they compute (a database, loopback
 * servers, the processes and browsers they start): in each room, a file more than there
 * are cores keeps every core busy.
 */
const SHARED_WORKERS = availableParallelism() + 1;

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    // The files that took longest in a measured run start first (test/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // No test fetches the public upstream lists: a test that syncs names loopback sources.
    // TEST_NAMES: the fixtures' `.test` names and documentation MX addresses count as public
    // in the services and CLIs tests start (in-process set-ups: harness/config.ts).
    env: { LIST_SOURCES: "off", TEST_NAMES: "on" },
    // The rooms (test/projects.ts says which file goes where): the pure tests
    // (`npm run test:unit`), the in-process ones, the few that replace a module and the
    // tests that spawn processes or drive Chromium share every core; then the ones that
    // hold a wall-clock bound, one file at a time with the machine to themselves. The
    // service the last two spawn is built once. But for `isolated`, the files of a worker
    // share its modules (`isolate: false`) rather than each importing them again in a
    // process of its own: less than half the CPU.
    isolate: false,
    projects: [
      {
        extends: true,
        test: { name: "unit", include: byRoom.unit, sequence: { groupOrder: 0 }, maxWorkers: SHARED_WORKERS },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: byRoom.integration,
          sequence: { groupOrder: 0 },
          maxWorkers: SHARED_WORKERS,
        },
      },
      {
        extends: true,
        test: {
          name: "isolated",
          include: byRoom.isolated,
          sequence: { groupOrder: 0 },
          maxWorkers: SHARED_WORKERS,
          isolate: true,
        },
      },
      {
        extends: true,
        test: {
          name: "processes",
          include: byRoom.processes,
          sequence: { groupOrder: 0 },
          maxWorkers: SHARED_WORKERS,
          // No bound on time here: a test waits for its processes as long as the machine
          // needs, and says so only when that is far beyond what it needs on a quiet one.
          testTimeout: 60_000,
          hookTimeout: 60_000,
          globalSetup: ["harness/build-once.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "apart",
          include: byRoom.apart,
          sequence: { groupOrder: 1 },
          maxWorkers: 1,
          globalSetup: ["harness/build-once.ts"],
        },
      },
    ],
  },
});
