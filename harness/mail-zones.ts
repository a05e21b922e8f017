/**
 * Zones that make domains plausible working mail domains, for the engine benchmark, the
 * detection evaluation and the known-good tests: each domain gets an MX (Google
 * Workspace's shared hosts, or its own `mail.<domain>`), an address, and name servers
 * on its base domain. Addresses are documentation ranges; the zone is the whole tree
 * (`"."`), so any name not given here does not exist.
 */

import { type CheckDeps, checkDomain } from "../src/core/check.js";
import type { DomainLists } from "../src/core/list-interfaces.js";
import { baseDomainOf } from "../src/core/names.js";
import type { CheckRecord } from "../src/core/record.js";
import { TypoIndex } from "../src/core/typo.js";
import { TEST_NAMES_ON } from "./config.js";
import { MemoryResolver } from "./memory-resolver.js";
import { type NameFixture, type ZoneFixture, Zones } from "./zones.js";

/** How a working mail domain's mail is hosted: at Google Workspace, or on its own `mail.<domain>`. */
export const MAIL_SETUPS = ["google-workspace", "own-server"] as const;

export type MailSetup = (typeof MAIL_SETUPS)[number];

export type ZoneNames = Record<string, NameFixture>;

const GOOGLE_WORKSPACE_MX = [
  "1 aspmx.l.google.com",
  "5 alt1.aspmx.l.google.com",
  "5 alt2.aspmx.l.google.com",
  "10 alt3.aspmx.l.google.com",
  "10 alt4.aspmx.l.google.com",
];

/**
 * Names every setup shares: Google's MX hosts, and gmail.com on them, so that the
 * service's resolver canary (the MX of big providers) finds the resolver sound.
 */
const SHARED_NAMES: ZoneNames = {
  ...Object.fromEntries(
    GOOGLE_WORKSPACE_MX.map((mx, index) => [
      mx.split(" ")[1] as string,
      { A: [`192.0.2.${20 + index}`], AAAA: [`2001:db8::${20 + index}`] },
    ]),
  ),
  "gmail.com": { MX: GOOGLE_WORKSPACE_MX },
};

/** Adds records to a name, keeping those it already has. */
export function addName(names: ZoneNames, owner: string, fixture: NameFixture): void {
  names[owner] = { ...names[owner], ...fixture };
}

/** Name servers on the domain's base domain (the engine asks NS of the base domain). */
export function addNameServers(names: ZoneNames, domain: string, nameServers: string[]): void {
  addName(names, baseDomainOf(domain), { NS: nameServers });
}

/** The records of one working mail domain. */
export function addMailDomain(names: ZoneNames, domain: string, setup: MailSetup): void {
  if (setup === "google-workspace") {
    addName(names, domain, { MX: GOOGLE_WORKSPACE_MX, A: ["198.51.100.80"] });
  } else {
    addName(names, domain, { MX: [`10 mail.${domain}`], A: ["198.51.100.80"] });
    addName(names, `mail.${domain}`, { A: ["203.0.113.25"], AAAA: ["2001:db8::25"] });
  }
  addNameServers(names, domain, ["ns1.dns-host.example", "ns2.dns-host.example"]);
}

/** A fixture over the whole tree holding the shared names plus `names`. */
export function wholeTreeFixture(names: ZoneNames): ZoneFixture {
  return { zones: ["."], names: { ...SHARED_NAMES, ...names } };
}

/** Zones in which every domain is a working mail domain with the given setup. */
export function mailZones(domains: Iterable<string>, setup: MailSetup): Zones {
  const names: ZoneNames = {};
  for (const domain of domains) addMailDomain(names, domain, setup);
  return new Zones(wholeTreeFixture(names));
}

/**
 * Checks each domain once through `checkDomain` with `lists`, DNS (in memory) saying it
 * is a working mail domain with the given setup; the clock is fixed.
 */
export async function checkAsMailDomains(
  domains: readonly string[],
  lists: DomainLists,
  setup: MailSetup,
): Promise<Map<string, CheckRecord>> {
  const deps: CheckDeps = {
    lists,
    typos: new TypoIndex(lists.popular),
    resolver: new MemoryResolver(mailZones(domains, setup)),
    clock: () => new Date("2025-01-01T00:00:00Z"),
    ...TEST_NAMES_ON,
  };
  const records = new Map<string, CheckRecord>();
  for (const domain of domains) records.set(domain, (await checkDomain(domain, deps)).record);
  return records;
}
