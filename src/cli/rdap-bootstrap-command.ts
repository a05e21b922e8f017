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
import { stateRdapBootstrapFile } from "../data/registry-files.js";
import {
  formatRdapBootstrapFile,
  parseRdapBootstrapFile,
  type RdapBootstrapFile,
} from "../registry/rdap-bootstrap.js";
import { PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE } from "../store/private-files.js";
import { commandRunner, type Given } from "./arguments.js";

const IANA_URL = "https://data.iana.org/rdap/dns.json";
const DOWNLOAD_TIMEOUT_MS = 30_000;

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

async function update(given: Given, io: RdapBootstrapIo): Promise<number> {
  const url = given.text("url") ?? IANA_URL;
  const outArg = given.text("out");
  const out = outArg ?? io.config.rdapBootstrapFile ?? stateRdapBootstrapFile(io.config.stateDir);
  let file: RdapBootstrapFile;
  try {
    file = await download(url);
  } catch (error) {
    io.stderr.write(`rdap-bootstrap: ${(error as Error).message}; ${out} left unchanged\n`);
    return 1;
  }
  if (outArg === undefined && io.config.rdapBootstrapFile === null) {
    await mkdir(io.config.stateDir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  }
  const temporary = `${out}.${process.pid}.tmp`;
  await writeFile(temporary, formatRdapBootstrapFile(file), { mode: PRIVATE_FILE_MODE });
  await rename(temporary, out);
  const tlds = file.services.reduce((n, [names]) => n + names.length, 0);
  io.stdout.write(`wrote ${out}: ${tlds} TLDs, publication ${file.publication}\n`);
  return 0;
}

export const run = commandRunner<"rdap-bootstrap", RdapBootstrapIo>("rdap-bootstrap", { update });
