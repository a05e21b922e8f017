/**
 * The registry files the domain-age look-up reads once at start-up: the IANA RDAP
 * bootstrap and the WHOIS server table. Which bootstrap: RDAP_BOOTSTRAP_FILE when set;
 * else `<STATE_DIR>/rdap-bootstrap.json` when `mailrisk rdap-bootstrap update` has
 * written one; else the bundled `data/rdap-bootstrap.json`, which is never written at
 * run time.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.js";
import { packagePath } from "../package-root.js";
import {
  parseRdapBootstrapFile,
  type RdapBootstrap,
  RdapBootstrapError,
  rdapBootstrapTable,
} from "../registry/rdap-bootstrap.js";
import { parseWhoisServers, type WhoisServers } from "../registry/whois-servers.js";

export const BUNDLED_RDAP_BOOTSTRAP_FILE = packagePath("data", "rdap-bootstrap.json");
const BUNDLED_WHOIS_SERVERS_FILE = packagePath("data", "whois-servers.txt");

/** Where `mailrisk rdap-bootstrap update` writes by default. */
export function stateRdapBootstrapFile(stateDir: string): string {
  return join(stateDir, "rdap-bootstrap.json");
}

export function rdapBootstrapFileToRead(config: Pick<Config, "rdapBootstrapFile" | "stateDir">): string {
  if (config.rdapBootstrapFile !== null) return config.rdapBootstrapFile;
  const refreshed = stateRdapBootstrapFile(config.stateDir);
  return existsSync(refreshed) ? refreshed : BUNDLED_RDAP_BOOTSTRAP_FILE;
}

/** Reads a bootstrap file (the bundled one by default); throws RdapBootstrapError when unreadable or malformed. */
export function loadRdapBootstrap(file: string = BUNDLED_RDAP_BOOTSTRAP_FILE): RdapBootstrap {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new RdapBootstrapError(`cannot read RDAP bootstrap ${file}: ${(error as Error).message}`);
  }
  return rdapBootstrapTable(parseRdapBootstrapFile(json));
}

/** Reads the WHOIS server table (the bundled one by default). */
export function loadWhoisServers(file: string = BUNDLED_WHOIS_SERVERS_FILE): WhoisServers {
  return parseWhoisServers(readFileSync(file, "utf8"));
}
