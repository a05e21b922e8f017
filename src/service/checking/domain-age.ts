/** Domain age (docs/api.md "The record" `domain_age_days`, `domain_created_at`), wired from configuration. */
import type { DomainAgeLookup } from "../../core/age.js";
import { loadRdapBootstrap, loadWhoisServers } from "../../data/registry-files.js";
import { RegistryDomainAgeLookup } from "../../registry/registry-domain-age-lookup.js";
import type { WhoisServer } from "../../registry/whois-servers.js";

export interface DomainAgeConfig {
  /** The bootstrap file to read (see src/data/registry-files.ts). */
  bootstrapFile: string;
  /** WHOIS_SERVER, parsed by loadConfig; null → the bundled data/whois-servers.txt. */
  whoisServer: WhoisServer | null;
  /** AGE_TIMEOUT_MS. */
  timeoutMs: number;
  clock?: () => Date;
  /** Aborts every look-up queued or running when the service shuts down. */
  signal?: AbortSignal;
}

/** Reads the bootstrap and the WHOIS table once; throws when a file is missing or malformed. */
export function createDomainAgeLookup(config: DomainAgeConfig): DomainAgeLookup {
  return new RegistryDomainAgeLookup({
    rdap: loadRdapBootstrap(config.bootstrapFile),
    whois: loadWhoisServers(),
    whoisOverride: config.whoisServer,
    deadlineMs: config.timeoutMs,
    clock: config.clock,
    signal: config.signal,
  });
}
