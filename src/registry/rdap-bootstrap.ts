/**
 * The IANA RDAP bootstrap for DNS (RFC 9224, `https://data.iana.org/rdap/dns.json`):
 * which RDAP base URLs serve which TLDs. The bundled snapshot lives in
 * `data/rdap-bootstrap.json` (built by scripts/build-rdap-bootstrap.ts); a fresher copy
 * from `mailrisk rdap-bootstrap update` in STATE_DIR, or `RDAP_BOOTSTRAP_FILE`, replaces
 * it (src/data/registry-files.ts decides which).
 */
import { lookupBySuffix } from "./suffix-table.js";

export interface RdapBootstrapFile {
  description?: string;
  version: string;
  publication: string;
  /** Each service: [TLDs, base URLs]. */
  services: [string[], string[]][];
}

/** TLD (lower case) → RDAP base URLs, https first. */
export type RdapBootstrap = ReadonlyMap<string, readonly string[]>;

export class RdapBootstrapError extends Error {
  override name = "RdapBootstrapError";
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isHttpUrl(value: string): boolean {
  return URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
}

/** Checks the shape of a parsed bootstrap file; throws RdapBootstrapError naming the first fault. */
export function parseRdapBootstrapFile(json: unknown): RdapBootstrapFile {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new RdapBootstrapError("RDAP bootstrap must be a JSON object");
  }
  const { description, version, publication, services } = json as Record<string, unknown>;
  if (typeof version !== "string") throw new RdapBootstrapError('RDAP bootstrap lacks a "version" string');
  if (typeof publication !== "string" || Number.isNaN(Date.parse(publication))) {
    throw new RdapBootstrapError('RDAP bootstrap lacks a "publication" date');
  }
  if (!Array.isArray(services) || services.length === 0) {
    throw new RdapBootstrapError('RDAP bootstrap lacks a non-empty "services" array');
  }
  services.forEach((service: unknown, index) => {
    const [tlds, urls] = Array.isArray(service) && service.length === 2 ? service : [];
    if (!isStringArray(tlds) || !isStringArray(urls) || tlds.length === 0 || !urls.some(isHttpUrl)) {
      throw new RdapBootstrapError(`RDAP bootstrap service #${index} is not [[TLDs], [http(s) URLs]]`);
    }
  });
  return {
    ...(typeof description === "string" ? { description } : {}),
    version,
    publication,
    services: services as [string[], string[]][],
  };
}

/** TLD → base URLs of a checked bootstrap file; https before http, other schemes dropped. */
export function rdapBootstrapTable(file: RdapBootstrapFile): RdapBootstrap {
  const table = new Map<string, string[]>();
  for (const [tlds, urls] of file.services) {
    const usable = urls.filter(isHttpUrl);
    const ordered = [
      ...usable.filter((u) => u.startsWith("https:")),
      ...usable.filter((u) => u.startsWith("http:")),
    ];
    for (const tld of tlds) table.set(tld.toLowerCase(), ordered);
  }
  return table;
}

/** The RDAP base URL for a domain (its longest listed suffix), or undefined when its TLD has no RDAP. */
export function rdapBaseUrlFor(bootstrap: RdapBootstrap, domain: string): string | undefined {
  return lookupBySuffix(bootstrap, domain)?.[0];
}

/**
 * Serialises a bootstrap file the way IANA's looks, one service per line so that a
 * refresh shows as a readable diff.
 */
export function formatRdapBootstrapFile(file: RdapBootstrapFile): string {
  const head = {
    ...(file.description !== undefined ? { description: file.description } : {}),
    publication: file.publication,
    version: file.version,
  };
  const fields = Object.entries(head).map(
    ([key, value]) => `  ${JSON.stringify(key)}: ${JSON.stringify(value)}`,
  );
  const services = file.services.map((service) => `    ${JSON.stringify(service)}`).join(",\n");
  return `{\n${fields.join(",\n")},\n  "services": [\n${services}\n  ]\n}\n`;
}
