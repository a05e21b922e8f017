/**
 * Which RDAP bootstrap file the service reads, decided once at start-up outside the
 * engine: RDAP_BOOTSTRAP_FILE when set; else `<STATE_DIR>/rdap-bootstrap.json` when
 * `mailrisk rdap-bootstrap update` has written one; else the bundled
 * `data/rdap-bootstrap.json`, which is never written at run time.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.js";
import { BUNDLED_RDAP_BOOTSTRAP_FILE } from "../core/age/rdap-bootstrap.js";

/** Where `mailrisk rdap-bootstrap update` writes by default. */
export function stateRdapBootstrapFile(stateDir: string): string {
  return join(stateDir, "rdap-bootstrap.json");
}

export function rdapBootstrapFileToRead(config: Pick<Config, "rdapBootstrapFile" | "stateDir">): string {
  if (config.rdapBootstrapFile !== null) return config.rdapBootstrapFile;
  const refreshed = stateRdapBootstrapFile(config.stateDir);
  return existsSync(refreshed) ? refreshed : BUNDLED_RDAP_BOOTSTRAP_FILE;
}
