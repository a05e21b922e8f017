/**
 * The whole engine against the loopback authoritative DNS server (fixture engine.json):
 * the bundled lists, NodeDnsResolver pointed at the server, a fixed clock, and a fake
 * domain-age lookup that knows only the registration dates a test gives it.
 */

import { checkInput } from "../../harness/check-input.js";
import { TEST_NAMES_ON } from "../../harness/config.js";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { type Pace, startPace } from "../../harness/machine-pace.js";
import { fixtureZones } from "../../harness/zones.js";
import type { DomainAge, DomainAgeLookup } from "../../src/core/age.js";
import type { CheckDeps } from "../../src/core/check.js";
import type { DomainLists } from "../../src/core/list-interfaces.js";
import type { CheckRecord } from "../../src/core/record.js";
import { FLAGS, type Flag } from "../../src/core/record.js";
import { TypoIndex } from "../../src/core/typo.js";
import { loadDomainLists } from "../../src/data/read-domain-lists.js";
import { NodeDnsResolver } from "../../src/dns/node-dns-resolver.js";

export const NOW = new Date("2026-11-22T12:00:00Z");
/**
 * Deadline of one DNS query on a quiet machine: the fixture's dropped names time out after
 * this. The engine stretches it by the machine's pace when it starts (harness/machine-pace.ts),
 * so that on a loaded machine an answering name still answers before it.
 */
export const TIMEOUT_MS = 300;

const DAY_MS = 86_400_000;

export function daysBefore(now: Date, days: number): Date {
  return new Date(now.getTime() - days * DAY_MS);
}

/** Answers registration dates from a table keyed by base domain; any other domain is unknown. */
export function fixedAges(createdAt: Record<string, Date>): DomainAgeLookup {
  return {
    async lookup(baseDomain: string): Promise<DomainAge | null> {
      const date = createdAt[baseDomain];
      return date ? { createdAt: date, source: "rdap" } : null;
    },
  };
}

export interface EngineOverTheWire {
  server: DnsTestServer;
  /** The machine's pace when the engine started, which stretched the resolver's deadline: a test's bounds on time stretch by it too. */
  pace: Pace;
  lists: DomainLists;
  deps: CheckDeps;
  /** Parses the input as the API does (docs/api.md "Inputs") and checks it, with the role adjustment for an address. */
  check(input: string): Promise<CheckRecord>;
  close(): Promise<void>;
}

export async function startEngine(options: { ages?: Record<string, Date> } = {}): Promise<EngineOverTheWire> {
  const lists = loadDomainLists();
  const server = await startDnsServer(fixtureZones("engine"));
  const pace = startPace();
  const deps: CheckDeps = {
    lists,
    typos: new TypoIndex(lists.popular),
    resolver: new NodeDnsResolver({
      servers: [server.address],
      timeoutMs: Math.ceil(pace.bound(TIMEOUT_MS)),
    }),
    age: fixedAges(options.ages ?? {}),
    clock: () => NOW,
    ...TEST_NAMES_ON,
  };
  return {
    server,
    pace,
    lists,
    deps,
    check: (raw) => checkInput(raw, deps),
    close: () => server.close(),
  };
}

/** The flags that are true in a record. */
export function trueFlags(record: CheckRecord): Flag[] {
  return FLAGS.filter((flag) => record[flag]);
}
