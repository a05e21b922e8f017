/**
 * The suite's rooms (test/projects.ts, vitest.config.ts): each test file lands in one,
 * from what it and the test/ and harness/ modules it imports use.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roomOf, rooms, testFiles } from "../projects.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DIRS = ["test", "clients/typescript/test"];
/** Spelled in pieces, so that this file's own text does not put it in another room. */
const CHILD_PROCESS = ["node", "child_process"].join(":");
const CLOCK = ["performance", "now()"].join(".");
const MARK = ["@room", "apart"].join(" ");
const MOCK = ["vi", "mock"].join(".");
const PACED = `import { startPace } from "../../harness/${["machine", "pace"].join("-")}.js";\n`;

describe("rooms", () => {
  it.each([
    ["test/main.serves-until-sigterm.test.ts", "processes"], // spawns the server
    ["test/web/public/pages.work-in-real-chromium.test.ts", "processes"], // drives Chromium
    ["test/instances.two-instances-deliver-each-webhook-event-once.test.ts", "processes"], // through service-world
    ["test/readiness.two-instances-started-on-a-busy-machine-are-ready-within-10-s.test.ts", "processes"], // its clock paced
    ["test/jobs/downloads.three-at-once-stream-in-bounded-memory.test.ts", "processes"], // through service-world; health-watcher paces its polls
    ["test/store/sqlite.checkpoints-the-log-in-a-thread-of-its-own.test.ts", "apart"], // marked so
    ["test/http/admin-token.compares-digests-in-constant-time.test.ts", "isolated"], // replaces a module
    ["test/store/plans.create-list-and-refuse-duplicates.test.ts", "integration"], // a database
    ["test/core/verdict.rows-and-weights.test.ts", "unit"],
    ["test/config.negative-ttl-and-age-lookup.test.ts", "unit"],
  ])("puts %s in %s", (file, room) => {
    expect(roomOf(join(ROOT, file), ROOT)).toBe(room);
  });

  it("puts every test file in exactly one room", () => {
    const all = testFiles(ROOT, DIRS);
    const byRoom = rooms(ROOT, DIRS);
    expect(Object.values(byRoom).flat().sort()).toEqual(all);
    expect(all.length).toBeGreaterThan(200);
  });

  describe("a new file", () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "mailrisk-rooms-"));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it.each([
      [`import { spawn } from "${CHILD_PROCESS}";\n`, "processes"],
      [`import { spawn } from "${CHILD_PROCESS}";\nconst started = ${CLOCK};\n`, "apart"],
      [`const started = ${CLOCK};\n`, "apart"],
      [`${PACED}const started = ${CLOCK};\n`, "unit"], // its bound stretched by the machine's pace
      [`/** ${["@room", "shared"].join(" ")}: a lower bound. */\nconst started = ${CLOCK};\n`, "unit"],
      [`/** ${MARK}: a few milliseconds. */\n${PACED}const started = ${CLOCK};\n`, "apart"], // says so, paced or not
      [`${PACED}import { spawn } from "${CHILD_PROCESS}";\nconst started = ${CLOCK};\n`, "processes"],
      [`${MOCK}("node:crypto");\n`, "isolated"],
      [`/** ${MARK}: a bound on time. */\n`, "apart"],
      ['import { openTestStore } from "../../harness/databases.js";\n', "integration"],
      ['import { createServer } from "node:http";\n', "integration"],
      ['import { expect, it } from "vitest";\nit("adds", () => expect(1 + 1).toBe(2));\n', "unit"],
    ])("with %j is in %s", async (text, room) => {
      const file = join(dir, `case-${room}-${text.length}.test.ts`);
      await writeFile(file, text);
      expect(roomOf(file, ROOT)).toBe(room);
    });
  });
});
