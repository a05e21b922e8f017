#!/usr/bin/env node
/** The `mailrisk` command: runs the command line (src/cli/run-cli.ts) on this process's streams and environment. */
import { runCli } from "./run-cli.js";
import { terminalText } from "./terminal-text.js";

runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `mailrisk: ${terminalText(error instanceof Error ? error.message : String(error))}\n`,
    );
    process.exitCode = 1;
  },
);
