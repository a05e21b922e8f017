/**
 * DNS zones for tests, in one readable JSON format shared by the loopback DNS server
 * (`dns-server.ts`, real DNS over the wire) and the in-memory resolver
 * (`memory-resolver.ts`). Fixtures live in `test/fixtures/zones/`.
 *
 * ```json
 * {
 *   "zones": ["test", "com"],
 *   "names": {
 *     "example.test": { "MX": ["10 mx1.example.test", "20 mx2.example.test"], "NS": ["ns1.example.test"] },
 *     "mx1.example.test": { "A": ["192.0.2.1"], "AAAA": ["2001:db8::1"] },
 *     "null-mx.test": { "MX": ["0 ."] },
 *     "broken.test": { "behaviour": "servfail" },
 *     "half-broken.test": { "A": ["192.0.2.2"], "behaviour": { "NS": "drop" } },
 *     "slow.test": { "A": ["192.0.2.3"], "delay": 400 }
 *   }
 * }
 * ```
 *
 * - `zones`: the apexes the server is authoritative for (`"."` for every name). A name
 *   under a zone that is not listed in `names` (and is no ancestor of a listed name)
 *   does not exist: NXDOMAIN. A name outside every zone is REFUSED.
 * - Records are written as zone-file RDATA: MX `"<priority> <host>"` (`"0 ."` is a null
 *   MX, RFC 7505), A and AAAA addresses, NS host names; host names go on the wire as
 *   written (case included). A listed name lacking the asked type answers NOERROR
 *   without records (NODATA). Owner names match in any case.
 * - `behaviour`: `"servfail"`, `"refused"`, `"drop"` (never answer, so the client
 *   times out), `"nxdomain"` (as broken servers do for a type they do not serve),
 *   `"garbage"` (the query's id followed by random bytes: no DNS message) or
 *   `"truncated"` (an empty answer with TC set over UDP, and the TCP connection closed
 *   without an answer) — for every type, or per type as `{ "MX": "drop" }`.
 * - `delay`: milliseconds before the answer (or, with `"drop"` in the memory resolver,
 *   before the timeout error).
 */
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { canonicalDnsName, type MxAnswer } from "../src/core/dns.js";

export type RecordType = "MX" | "A" | "AAAA" | "NS";
export type Behaviour = "servfail" | "refused" | "drop" | "nxdomain" | "garbage" | "truncated";

export interface NameFixture {
  /** What the name is for (documentation only). */
  $comment?: string;
  MX?: string[];
  A?: string[];
  AAAA?: string[];
  NS?: string[];
  behaviour?: Behaviour | Partial<Record<RecordType, Behaviour>>;
  delay?: number;
}

export interface ZoneFixture {
  $comment?: string;
  zones: string[];
  names: Record<string, NameFixture>;
}

export interface RecordSets {
  MX: MxAnswer[];
  A: string[];
  AAAA: string[];
  NS: string[];
}

/** What an authoritative server says about one name and type. */
export type Resolution =
  | { kind: "answer"; records: RecordSets[RecordType]; zone: string }
  | { kind: "nodata" | "nxdomain"; zone: string }
  | { kind: "servfail" | "refused" | "drop" | "garbage" | "truncated" };

interface CompiledName {
  records: Partial<RecordSets>;
  behaviour: Partial<Record<RecordType, Behaviour>> | Behaviour | undefined;
  delayMs: number;
}

const RECORD_TYPES: readonly RecordType[] = ["MX", "A", "AAAA", "NS"];

function isUnder(name: string, zone: string): boolean {
  return zone === "" || name === zone || name.endsWith(`.${zone}`);
}

function parseMx(value: string, owner: string): MxAnswer {
  const match = /^(\d+)\s+(\S+)$/.exec(value.trim());
  if (!match) throw new Error(`zone fixture: MX "${value}" of ${owner} is not "<priority> <host>"`);
  return { priority: Number(match[1]), exchange: match[2] ?? "" };
}

function parseAddresses(values: string[], family: 4 | 6, owner: string): string[] {
  for (const value of values) {
    if (isIP(value) !== family) throw new Error(`zone fixture: "${value}" of ${owner} is no IPv${family}`);
  }
  return values;
}

function compileName(owner: string, fixture: NameFixture): CompiledName {
  const records: Partial<RecordSets> = {};
  if (fixture.MX) records.MX = fixture.MX.map((value) => parseMx(value, owner));
  if (fixture.A) records.A = parseAddresses(fixture.A, 4, owner);
  if (fixture.AAAA) records.AAAA = parseAddresses(fixture.AAAA, 6, owner);
  if (fixture.NS) records.NS = fixture.NS;
  return { records, behaviour: fixture.behaviour, delayMs: fixture.delay ?? 0 };
}

/** A compiled, read-only zone set. Look-ups are map hits, fast enough for benchmarks. */
export class Zones {
  private readonly zones: string[];
  private readonly names = new Map<string, CompiledName>();
  /** Every name that exists: listed names, their ancestors inside the zone, the apexes. */
  private readonly existing = new Set<string>();

  constructor(fixture: ZoneFixture) {
    // Longest first, so the innermost zone wins.
    this.zones = fixture.zones.map(canonicalDnsName).sort((a, b) => b.length - a.length);
    for (const zone of this.zones) this.existing.add(zone);
    for (const [rawOwner, nameFixture] of Object.entries(fixture.names)) {
      const owner = canonicalDnsName(rawOwner);
      const zone = this.zoneOf(owner);
      if (zone === undefined) throw new Error(`zone fixture: ${owner} is outside every zone`);
      this.names.set(owner, compileName(owner, nameFixture));
      for (let name = owner; name !== zone; ) {
        this.existing.add(name);
        const dot = name.indexOf(".");
        if (dot < 0) break;
        name = name.slice(dot + 1);
      }
    }
  }

  /** The innermost served zone holding the name, if any. */
  zoneOf(name: string): string | undefined {
    return this.zones.find((zone) => isUnder(name, zone));
  }

  /** Milliseconds the server waits before answering this name. */
  delayOf(name: string): number {
    return this.names.get(canonicalDnsName(name))?.delayMs ?? 0;
  }

  /** Types other than MX, A, AAAA and NS exist nowhere (NODATA on existing names). */
  resolve(rawName: string, type: string): Resolution {
    const name = canonicalDnsName(rawName);
    const zone = this.zoneOf(name);
    if (zone === undefined) return { kind: "refused" };
    const compiled = this.names.get(name);
    const behaviour =
      typeof compiled?.behaviour === "object" ? compiled.behaviour[type as RecordType] : compiled?.behaviour;
    if (behaviour === "nxdomain") return { kind: "nxdomain", zone };
    if (behaviour) return { kind: behaviour };
    if (!this.existing.has(name)) return { kind: "nxdomain", zone };
    const records = RECORD_TYPES.includes(type as RecordType)
      ? compiled?.records[type as RecordType]
      : undefined;
    return records && records.length > 0 ? { kind: "answer", records, zone } : { kind: "nodata", zone };
  }
}

export function loadZones(path: string | URL): Zones {
  return new Zones(JSON.parse(readFileSync(path, "utf8")) as ZoneFixture);
}

/** The bundled fixture a test names, e.g. `fixtureZones("engine")` → test/fixtures/zones/engine.json. */
export function fixtureZones(name: string): Zones {
  return loadZones(new URL(`../test/fixtures/zones/${name}.json`, import.meta.url));
}
