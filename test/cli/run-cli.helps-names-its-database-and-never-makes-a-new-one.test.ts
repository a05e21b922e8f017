/**
 * The `mailrisk` command line itself (src/cli/run-cli.ts), as a newcomer meets it:
 * `--help` on every command and sub-command, made from the command table; `--version`
 * from package.json; messages that say what is wrong; the database named on stderr on a
 * terminal or with --verbose; a command other than serve or migrate that finds no SQLite
 * file refuses to make one (run from another directory, say) and exits 2, naming the path
 * and how to choose another; a database it cannot reach is named with its cause.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliArguments } from "../../harness/entry-points.js";
import { COMMANDS, commandUsage } from "../../src/cli/commands.js";
import { runCli } from "../../src/cli/run-cli.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function capture(isTTY = false) {
  let text = "";
  const stream = Object.assign(
    new Writable({
      write(chunk, _encoding, callback) {
        text += chunk;
        callback();
      },
    }),
    { isTTY },
  );
  return { stream, text: () => text };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "mailrisk-run-cli-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** `mailrisk <argv>` in this process, in `cwd` (default: the test's directory), with `env` as the whole environment. */
async function mailrisk(
  argv: string[],
  options: { env?: Record<string, string>; cwd?: string; tty?: boolean } = {},
) {
  const stdout = capture();
  const stderr = capture(options.tty);
  const code = await runCli(argv, {
    stdin: Readable.from([]),
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: options.env ?? {},
    cwd: options.cwd ?? dir,
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe("help and version", () => {
  const forms = COMMANDS.flatMap((command) =>
    command.forms.map((form) => [command.name, /^[a-z][a-z-]*(?=\s|$)/.exec(form.args)?.[0], form] as const),
  );

  it.each(forms)(
    "%s %s --help prints its usage and exits 0, touching no database",
    async (name, sub, form) => {
      const argv = sub === undefined ? [name, "--help"] : [name, sub, "--help"];
      const { code, stdout, stderr } = await mailrisk(argv);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      expect(stdout).toMatch(/^usage: mailrisk /);
      expect(stdout).toContain(`mailrisk ${commandUsage(name, form)}`);
      // Wrapped for the terminal: compared word by word.
      expect(stdout.replace(/\s+/g, " ")).toContain(`exit codes: ${form.exitCodes}`);
      expect(existsSync(join(dir, "var"))).toBe(false);
    },
  );

  it("shows only the sub-command's forms, and takes -h and help <command> <sub-command> too", async () => {
    const keysCreate = await mailrisk(["keys", "create", "--help"]);
    expect(keysCreate.stdout.split("\n")[0]).toBe(
      "usage: mailrisk keys create --plan P [--name N] [--publishable --origin O…] [--json]",
    );
    expect(keysCreate.stdout).not.toContain("keys revoke");
    expect((await mailrisk(["keys", "create", "-h"])).stdout).toBe(keysCreate.stdout);
    expect((await mailrisk(["help", "keys", "create"])).stdout).toBe(keysCreate.stdout);
    const check = await mailrisk(["check", "--help"]);
    expect(check.stdout).not.toMatch(/Unknown option/);
    expect(check.stdout).toContain("usage: mailrisk check <email-or-domain|->…");
    expect(check.stdout).toContain("       mailrisk check --csv [FILE|-]");
    // After --, --help is an input, not a request for help.
    expect((await mailrisk(["check", "--", "--help"])).stdout).not.toContain("usage:");
  });

  it("prints the version of package.json", async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    for (const flag of ["--version", "-V", "version"]) {
      expect(await mailrisk([flag])).toEqual({ code: 0, stdout: `mailrisk ${version}\n`, stderr: "" });
    }
  });

  it("says what is wrong with the command line", async () => {
    const none = await mailrisk([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^mailrisk: a command is needed\n/);
    const unknown = await mailrisk(["purge"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^mailrisk: unknown command "purge" \(commands: serve, check, keys/);
    const config = await mailrisk(["keys", "list"], { env: { PORT: "many" } });
    expect(config).toMatchObject({ code: 2, stderr: expect.stringMatching(/configuration error: PORT/) });
  });
});

describe("which database", () => {
  it("refuses to make a new SQLite database from another directory, naming the path and the way out", async () => {
    const docs = join(dir, "docs");
    await mkdir(docs);
    const { code, stdout, stderr } = await mailrisk(["keys", "list"], { cwd: docs });
    expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
    expect(stderr).toContain(`there is no database at ${join(docs, "var", "mailrisk.db")}`);
    expect(stderr).toMatch(/STATE_DIR/);
    expect(stderr).toMatch(/DATABASE_URL/);
    expect(stderr).toMatch(/mailrisk migrate/);
    expect(existsSync(join(docs, "var"))).toBe(false);
    for (const argv of [
      ["plans", "list"],
      ["check", "gmail.com"],
      ["records", "purge", "--all"],
    ]) {
      expect((await mailrisk(argv, { cwd: docs })).code, argv.join(" ")).toBe(2);
    }
    const explicit = await mailrisk(["keys", "list"], {
      env: { DATABASE_URL: `sqlite:${join(dir, "other.db")}` },
    });
    expect(explicit.code).toBe(2);
    expect(existsSync(join(dir, "other.db"))).toBe(false);
  });

  it("lets migrate make it, then names it on stderr only on a terminal or with --verbose", async () => {
    const env = { STATE_DIR: join(dir, "state") };
    const path = join(dir, "state", "mailrisk.db");
    const made = await mailrisk(["migrate"], { env });
    expect(made.code).toBe(0);
    expect(existsSync(path)).toBe(true);
    expect(await mailrisk(["plans", "list", "--json"], { env })).toMatchObject({ code: 0, stderr: "" });
    const said = `mailrisk: database SQLite ${path}\n`;
    expect((await mailrisk(["plans", "list", "--json"], { env, tty: true })).stderr).toBe(said);
    expect((await mailrisk(["--verbose", "plans", "list", "--json"], { env })).stderr).toBe(said);
    expect((await mailrisk(["plans", "list", "--verbose"], { env })).stderr).toBe(said);
  });

  it("check says on stderr when the resolver does not answer, whatever else is quiet", async () => {
    const env = {
      STATE_DIR: join(dir, "state"),
      DNS_SERVERS: "127.0.0.1:9",
      DNS_TIMEOUT_MS: "200",
      AGE_LOOKUP: "off",
    };
    expect((await mailrisk(["migrate"], { env })).code).toBe(0);
    const { code, stdout, stderr } = await mailrisk(["check", "--json", "acme-widgets.com"], { env });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      valid: true,
      reason: expect.stringMatching(/^DNS (timeout|failure)$/),
    });
    expect(stderr).toMatch(/^mailrisk: the DNS resolver does not answer \(gmail\.com: /);
    expect(stderr).toContain("DNS_SERVERS=127.0.0.1:9");
  });

  it("names an unreachable PostgreSQL database and the cause, without its password, and exits 1", async () => {
    const { code, stderr } = await mailrisk(["keys", "list"], {
      env: { DATABASE_URL: "postgres://mailrisk:secret@127.0.0.1:1/mailrisk" },
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^mailrisk: the database is unavailable: connect ECONNREFUSED 127\.0\.0\.1:1/);
    expect(stderr).toContain("PostgreSQL postgres://mailrisk@127.0.0.1:1/mailrisk; DATABASE_URL sets it");
    expect(stderr).not.toContain("secret");
  });

  it("as a process run from another directory: exit 2, and no var/ made there", async () => {
    const docs = join(dir, "docs");
    await mkdir(docs);
    const child = spawn(process.execPath, [...cliArguments(), "keys", "list"], {
      cwd: docs,
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain(`there is no database at ${join(docs, "var", "mailrisk.db")}`);
    expect(existsSync(join(docs, "var"))).toBe(false);
  }, 30_000);
});
