/** A CliContext for calling a sub-command's `run()` with captured output. */
import { Readable, Writable } from "node:stream";
import type { CliContext } from "../src/cli/context.js";
import { terminalStream } from "../src/cli/terminal-text.js";
import { loadConfig } from "../src/config.js";
import { openStore } from "../src/store/index.js";

export interface TestCli {
  ctx: CliContext;
  /** Everything written to stdout so far. */
  stdout(): string;
  stderr(): string;
}

/** Collects writes synchronously, so the text is complete as soon as `run()` resolves. */
function capture(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(Buffer.from(chunk));
      callback();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString("utf8") };
}

/** `env`: more of the environment (LIST_SOURCES defaults to off: no test fetches the public lists; TEST_NAMES to on). */
export function createTestCli(databaseUrl: string, stdin = "", env: Record<string, string> = {}): TestCli {
  const stdout = capture();
  const stderr = capture();
  const config = loadConfig({ LIST_SOURCES: "off", TEST_NAMES: "on", ...env, DATABASE_URL: databaseUrl });
  return {
    ctx: {
      config,
      stdin: Readable.from([stdin]),
      // As runCli gives them: every write is terminal text.
      stdout: terminalStream(stdout.stream),
      stderr: terminalStream(stderr.stream),
      clock: () => new Date(),
      openStore: () => openStore(config.database),
    },
    stdout: stdout.text,
    stderr: stderr.text,
  };
}
