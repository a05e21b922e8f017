/**
 * `mailrisk rdap-bootstrap update [--url URL] [--out FILE]`: downloads IANA's RDAP
 * bootstrap for DNS, checks its shape and replaces, in one rename, the file the service
 * reads instead of the bundled one: RDAP_BOOTSTRAP_FILE when set, else
 * `<STATE_DIR>/rdap-bootstrap.json` (STATE_DIR created when missing). The bundled
 * data/rdap-bootstrap.json is never written (scripts/build-rdap-bootstrap.ts rebuilds it).
 * Exit code 0 when written, 1 when the download or its shape failed, 2 on usage errors.
 */
import { mkdir, rename, writeFile } from "node:fs/promises";
import type { Config } from "../config.js";
import { PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE } from "../core/file-modes.js";
import { stateRdapBootstrapFile } from "../data/registry-files.js";
import {
  formatRdapBootstrapFile,
  parseRdapBootstrapFile,
  type RdapBootstrapFile,
} from "../registry/rdap-bootstrap.js";
import { EXIT_USAGE, parseArguments } from "./arguments.js";
import { usageOf } from "./usage-text.js";

const USAGE = usageOf("rdap-bootstrap");
const IANA_URL = "https://data.iana.org/rdap/dns.json";
const DOWNLOAD_TIMEOUT_MS = 30_000;
const OPTIONS = { url: { type: "string" }, out: { type: "string" } } as const;

export interface RdapBootstrapIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  config: Pick<Config, "rdapBootstrapFile" | "stateDir">;
}

async function download(url: string): Promise<RdapBootstrapFile> {
  const response = await fetch(url, {
    headers: { accept: "application/json" },
    signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  let json: unknown;
  try {
    json = JSON.parse(await response.text());
  } catch {
    throw new Error(`${url} did not return JSON`);
  }
  return parseRdapBootstrapFile(json);
}

export async function run(args: string[], io: RdapBootstrapIo): Promise<number> {
  const result = parseArguments({ args, options: OPTIONS, allowPositionals: true });
  if (!result.ok) {
    io.stderr.write(`mailrisk: ${result.message}\n${USAGE}\n`);
    return EXIT_USAGE;
  }
  const parsed = result.parsed;
  if (parsed.positionals.length !== 1 || parsed.positionals[0] !== "update") {
    const got = parsed.positionals.length === 0 ? "" : ` (got "${parsed.positionals.join(" ")}")`;
    io.stderr.write(`mailrisk: rdap-bootstrap needs the command update${got}\n${USAGE}\n`);
    return EXIT_USAGE;
  }
  const url = parsed.values.url ?? IANA_URL;
  const out = parsed.values.out ?? io.config.rdapBootstrapFile ?? stateRdapBootstrapFile(io.config.stateDir);
  let file: RdapBootstrapFile;
  try {
    file = await download(url);
  } catch (error) {
    io.stderr.write(`rdap-bootstrap: ${(error as Error).message}; ${out} left unchanged\n`);
    return 1;
  }
  if (parsed.values.out === undefined && io.config.rdapBootstrapFile === null) {
    await mkdir(io.config.stateDir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  }
  const temporary = `${out}.${process.pid}.tmp`;
  await writeFile(temporary, formatRdapBootstrapFile(file), { mode: PRIVATE_FILE_MODE });
  await rename(temporary, out);
  const tlds = file.services.reduce((n, [names]) => n + names.length, 0);
  io.stdout.write(`wrote ${out}: ${tlds} TLDs, publication ${file.publication}\n`);
  return 0;
}
