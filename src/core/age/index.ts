/** Domain age (docs/api.md §4 `domain_age_days`, `domain_created_at`), wired from configuration. */
import type { DomainAgeLookup } from "./domain-age.js";
import { loadRdapBootstrap } from "./rdap-bootstrap.js";
import { RegistryDomainAgeLookup } from "./registry-domain-age-lookup.js";
import { loadWhoisServers, type WhoisServer } from "./whois-servers.js";

export { ageInDays, type DomainAge, type DomainAgeLookup, domainAgeFields } from "./domain-age.js";

export interface DomainAgeConfig {
  /** The bootstrap file to read (chosen by src/data/rdap-bootstrap-file.ts); null → the bundled data/rdap-bootstrap.json. */
  bootstrapFile: string | null;
  /** WHOIS_SERVER, parsed by loadConfig; null → the bundled data/whois-servers.txt. */
  whoisServer: WhoisServer | null;
  /** AGE_TIMEOUT_MS. */
  timeoutMs: number;
  clock?: () => Date;
}

/** Reads the bootstrap and the WHOIS table once; throws when a file is missing or malformed. */
export function createDomainAgeLookup(config: DomainAgeConfig): DomainAgeLookup {
  return new RegistryDomainAgeLookup({
    rdap: loadRdapBootstrap(config.bootstrapFile),
    whois: loadWhoisServers(),
    whoisOverride: config.whoisServer,
    deadlineMs: config.timeoutMs,
    clock: config.clock,
  });
}
