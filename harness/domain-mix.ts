/**
 * A generated world for the engine and wire benchmarks: a realistic mix of distinct
 * domains (Google Workspace and Microsoft 365 tenants, own mail servers, real disposable,
 * free-provider and forwarder entries, parked domains, typos, fallback, null MX,
 * NXDOMAIN …), each typed as a user would type it, and the zones that answer for them.
 * Seeded, so the same count and seed give the same mix.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { normaliseDomain } from "../src/core/names.js";
import { readCuratedLists } from "../src/data/curated.js";
import { GENERATED_FILES, parseGeneratedFile } from "../src/data/generated.js";
import { DATA_DIR } from "../src/data/read-domain-lists.js";
import { addMailDomain, addName, addNameServers, wholeTreeFixture, type ZoneNames } from "./mail-zones.js";
import { type Random, randomIndex, sample, seededRandom } from "./seeded-random.js";
import type { ZoneFixture } from "./zones.js";

export const MIX_SEED = 20_250_101;

/** How the inputs of the mix are typed (see `asInput`). */
export const MIX_INPUTS =
  "40 % bare domain, 5 % upper-case with trailing dot, 45 % address, 10 % role address (info@); Unicode names included";

export interface MixEntry {
  kind: string;
  /** What is checked: a domain or an address, as a user would type it. */
  input: string;
}

export interface DomainMix {
  /** Distinct domains, in a random but repeatable order. */
  entries: MixEntry[];
  fixture: ZoneFixture;
}

const WORDS = [
  "acme",
  "nordwind",
  "bluebird",
  "atlas",
  "harbor",
  "pixel",
  "granite",
  "meadow",
  "summit",
  "lumen",
  "orbit",
  "cedar",
  "vertex",
  "quill",
  "maple",
  "bücher",
  "müller",
  "café",
  "søren",
  "örnek",
];
const TLDS = ["com", "com", "com", "net", "org", "de", "fr", "nl", "io", "co.uk", "com.au", "ch"];

/** A fresh registrable name; some are Unicode (IDN), as users type them. */
function syntheticDomain(random: Random, serial: number): string {
  return `${WORDS[randomIndex(random, WORDS.length)]}-${serial}.${TLDS[randomIndex(random, TLDS.length)]}`;
}

/** Typing slips of a popular domain: adjacent transpositions and dropped letters of its first label. */
function typosOf(domain: string): string[] {
  const dot = domain.indexOf(".");
  const [label, rest] = [domain.slice(0, dot), domain.slice(dot)];
  const slips: string[] = [];
  for (let i = 0; i < label.length - 1; i++) {
    slips.push(`${label.slice(0, i)}${label[i + 1]}${label[i]}${label.slice(i + 2)}${rest}`);
  }
  for (let i = 0; i < label.length; i++) slips.push(`${label.slice(0, i)}${label.slice(i + 1)}${rest}`);
  return slips.filter((slip) => slip !== domain && !slip.startsWith("."));
}

/** How one input is typed: a domain (sometimes upper-case, trailing dot) or an address, sometimes a role one. */
function asInput(domain: string, random: Random, serial: number): string {
  const roll = random();
  if (roll < 0.4) return domain;
  if (roll < 0.45) return `${domain.toUpperCase()}.`;
  if (roll < 0.9) return `user.${serial}@${domain}`;
  return `info@${domain}`;
}

/** Draws the items in random order, each once; undefined when all are drawn. */
function drawFrom(items: readonly string[], random: Random): () => string | undefined {
  const shuffled = sample(items, items.length, random);
  return () => shuffled.pop();
}

/**
 * The mix's domains and their zones. Shares of `count`: synthetic kinds are
 * unlimited; real list entries and typos are each drawn once (the free-provider and
 * forwarder lists are short, so the mix holds all of them), and every domain in the mix
 * is distinct.
 */
export function domainMix(count: number, seed = MIX_SEED): DomainMix {
  const random = seededRandom(seed);
  const curated = readCuratedLists(DATA_DIR);
  const generated = (file: string) => [
    ...parseGeneratedFile(readFileSync(join(DATA_DIR, file), "utf8"), file).sources.keys(),
  ];
  const infrastructure = curated.disposableInfrastructure.map((e) => e.entry);
  const parking = curated.parkingHosts.map((e) => e.entry);
  const names: ZoneNames = {};
  infrastructure.forEach((entry, index) => {
    addName(names, `mx.${entry}`, { A: [`192.0.2.${100 + index}`] });
  });
  const used = new Set<string>();
  let serial = 0;
  let tenants = 0;
  const fresh = () => syntheticDomain(random, ++serial);

  /** Each kind: its share of the mix, where its domains come from, and the records it gets. */
  const kinds: {
    kind: string;
    share: number;
    domains: () => string | undefined;
    records: (domain: string) => void;
  }[] = [
    {
      kind: "Google Workspace",
      share: 0.18,
      domains: fresh,
      records: (d) => addMailDomain(names, d, "google-workspace"),
    },
    {
      kind: "Microsoft 365",
      share: 0.14,
      domains: fresh,
      records: (d) => {
        // Microsoft names the host after the domain; a counter keeps IDN names out of the label.
        const host = `tenant-${++tenants}.mail.protection.outlook.com`;
        addName(names, d, { MX: [`0 ${host}`], A: ["198.51.100.81"] });
        addName(names, host, { A: ["192.0.2.40", "192.0.2.41"] });
        addNameServers(names, d, ["ns1-01.azure-dns.com", "ns2-01.azure-dns.net"]);
      },
    },
    {
      kind: "own mail server",
      share: 0.14,
      domains: fresh,
      records: (d) => addMailDomain(names, d, "own-server"),
    },
    {
      kind: "subdomain on Google",
      share: 0.04,
      domains: () => `mail.${fresh()}`,
      records: (d) => addMailDomain(names, d, "google-workspace"),
    },
    {
      kind: "disposable, listed",
      share: 0.14,
      domains: drawFrom(generated(GENERATED_FILES.disposable), random),
      records: (d) =>
        random() < 0.5
          ? addMailDomain(names, d, "own-server")
          : addName(names, d, {
              MX: [`10 mx.${infrastructure[randomIndex(random, infrastructure.length)]}`],
            }),
    },
    {
      kind: "disposable infrastructure",
      share: 0.03,
      domains: fresh,
      records: (d) =>
        addName(names, d, { MX: [`10 mx.${infrastructure[randomIndex(random, infrastructure.length)]}`] }),
    },
    {
      kind: "free provider",
      share: 0.05,
      domains: drawFrom(
        curated.categories.free.map((e) => e.entry),
        random,
      ),
      records: (d) => addMailDomain(names, d, "own-server"),
    },
    {
      kind: "forwarder",
      share: 0.02,
      domains: drawFrom(generated(GENERATED_FILES.forwarders), random),
      records: (d) => addMailDomain(names, d, "own-server"),
    },
    {
      kind: "parked",
      share: 0.05,
      domains: fresh,
      records: (d) => {
        const service = parking[randomIndex(random, parking.length)];
        addName(names, d, { A: ["198.51.100.99"], NS: [`ns1.${service}`, `ns2.${service}`] });
      },
    },
    {
      kind: "typo of a popular domain",
      share: 0.05,
      domains: drawFrom(curated.popular.flatMap(typosOf), random),
      records: (d) => addMailDomain(names, d, "own-server"),
    },
    {
      kind: "fallback (A only)",
      share: 0.06,
      domains: fresh,
      records: (d) => addName(names, d, { A: ["198.51.100.82"], NS: ["ns1.dns-host.example"] }),
    },
    {
      kind: "null MX",
      share: 0.02,
      domains: fresh,
      records: (d) => addName(names, d, { MX: ["0 ."], A: ["198.51.100.83"] }),
    },
    {
      kind: "no MX, no address",
      share: 0.02,
      domains: fresh,
      records: (d) => addName(names, d, { NS: ["ns1.dns-host.example"] }),
    },
    { kind: "NXDOMAIN", share: 0.06, domains: fresh, records: () => {} },
  ];

  const entries: MixEntry[] = [];
  for (const { kind, share, domains, records } of kinds) {
    const wanted = Math.round(share * count);
    for (let taken = 0; taken < wanted; ) {
      const domain = domains();
      if (domain === undefined) break;
      // A typing slip can make an invalid name (`-online.de`): not an input the engine gets.
      const ascii = normaliseDomain(domain);
      if (ascii === undefined || used.has(ascii)) continue;
      used.add(ascii);
      records(ascii);
      entries.push({ kind, input: asInput(domain, random, serial + entries.length) });
      taken++;
    }
  }
  return { entries: sample(entries, entries.length, random), fixture: wholeTreeFixture(names) };
}
