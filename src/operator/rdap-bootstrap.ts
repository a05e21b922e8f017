/**
 * Refreshing the RDAP bootstrap (`mailrisk rdap-bootstrap update`, docs/data.md): downloads
 * IANA's RDAP bootstrap for DNS, checks its shape and replaces, in one rename, the file the
 * service reads instead of the bundled one: the given file, else RDAP_BOOTSTRAP_FILE, else
 * `<STATE_DIR>/rdap-bootstrap.json` (STATE_DIR created when missing), with the state files'
 * private modes. The bundled data/rdap-bootstrap.json is never written
 * (scripts/build-rdap-bootstrap.ts rebuilds it).
 */
import { mkdir, rename, writeFile } from "node:fs/promises";
import type { Config } from "../config.js";
import { PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE } from "../core/file-modes.js";
import { stateRdapBootstrapFile } from "../data/registry-files.js";
import { formatRdapBootstrapFile, parseRdapBootstrapFile } from "../registry/rdap-bootstrap.js";

export const IANA_RDAP_BOOTSTRAP_URL = "https://data.iana.org/rdap/dns.json";
const DOWNLOAD_TIMEOUT_MS = 30_000;

export type RdapBootstrapUpdate =
  | { written: true; file: string; tlds: number; publication: string }
  | { written: false; file: string; reason: string };

async function download(url: string) {
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

/** Downloads `url` and writes it to `out` (else the configured file); a failed download or shape leaves the file as it was. */
export async function updateRdapBootstrap(
  config: Pick<Config, "rdapBootstrapFile" | "stateDir">,
  { url = IANA_RDAP_BOOTSTRAP_URL, out }: { url?: string | undefined; out?: string | undefined },
): Promise<RdapBootstrapUpdate> {
  const file = out ?? config.rdapBootstrapFile ?? stateRdapBootstrapFile(config.stateDir);
  let bootstrap: Awaited<ReturnType<typeof download>>;
  try {
    bootstrap = await download(url);
  } catch (error) {
    return { written: false, file, reason: (error as Error).message };
  }
  if (out === undefined && config.rdapBootstrapFile === null) {
    await mkdir(config.stateDir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  }
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, formatRdapBootstrapFile(bootstrap), { mode: PRIVATE_FILE_MODE });
  await rename(temporary, file);
  const tlds = bootstrap.services.reduce((n, [names]) => n + names.length, 0);
  return { written: true, file, tlds, publication: bootstrap.publication };
}
