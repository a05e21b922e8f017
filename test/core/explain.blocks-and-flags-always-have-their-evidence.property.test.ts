/**
 * The promises of the evidence (docs/api.md "Evidence (`explain=true`)") as a property over generated worlds:
 * the domains of the engine fixture, of a generated mix (harness/domain-mix.ts) and of a
 * disposable world (harness/disposable-world.ts), each with the facts DNS gave it, then
 * a random state of the world around it — what was learnt disposable from traffic, what
 * the operator allowed, denied or marked never disposable, the domain's age, DNS failing
 * for it, its name servers or MX host swapped for a parking service's, a disposable
 * service's or a provider's, an address or a role account at it. Whatever the state:
 * every blocked answer has an item, every true flag has the item that set it, the items'
 * risks add up to the record's, and every item fits its schema.
 *
 * Its 3,000 runs take a few seconds of one core: the test's time-out, written for a quiet
 * machine, stretches by the machine's pace (harness/machine-pace.ts).
 */

import { readFileSync } from "node:fs";
import fc from "fast-check";
import { beforeAll, describe, it } from "vitest";
import { TEST_NAMES_ON } from "../../harness/config.js";
import { disposableWorld, disposableWorldLists } from "../../harness/disposable-world.js";
import { domainMix } from "../../harness/domain-mix.js";
import { startPace } from "../../harness/machine-pace.js";
import { MemoryResolver } from "../../harness/memory-resolver.js";
import { fixtureZones, type ZoneFixture, Zones } from "../../harness/zones.js";
import { type DomainFacts, decideDomain, forAddress, lookupRouting } from "../../src/core/check.js";
import { parseInput } from "../../src/core/input.js";
import type { InfrastructureKind, LearnedInfrastructure, OverrideKind } from "../../src/core/learned.js";
import type { DomainLists } from "../../src/core/list-interfaces.js";
import type { MailHost, MailRouting } from "../../src/core/mail-routing.js";
import { DAY_MS } from "../../src/core/time.js";
import { TypoIndex } from "../../src/core/typo.js";
import { loadDomainLists } from "../../src/data/read-domain-lists.js";
import { expectExplained } from "./explained.js";

const NOW = new Date("2026-11-25T12:00:00Z");
/** The machine's pace when the file starts: it stretches the time-outs, written for a quiet machine. */
const pace = startPace();

/** One world: its lists and every domain with the facts DNS gave it. */
interface World {
  lists: DomainLists;
  typos: TypoIndex;
  domains: { domain: string; routing: MailRouting }[];
  /** MX hosts, MX addresses and name servers seen in the world: what can be learnt. */
  seen: Record<InfrastructureKind, string[]>;
}

async function worldOf(lists: DomainLists, zones: Zones, inputs: readonly string[]): Promise<World> {
  const resolver = new MemoryResolver(zones, { log: "total" });
  const domains: World["domains"] = [];
  const seen: World["seen"] = { mx_host: [], mx_ip: [], ns: [] };
  for (const input of new Set(inputs)) {
    const parsed = parseInput(input, TEST_NAMES_ON);
    if (!parsed.ok) continue;
    const { domain } = parsed.input;
    const routing = await lookupRouting(domain, resolver, TEST_NAMES_ON);
    domains.push({ domain, routing });
    for (const host of routing.hosts) {
      seen.mx_host.push(host.host);
      seen.mx_ip.push(...host.ips);
    }
    seen.ns.push(...(routing.nameServers ?? []));
  }
  const unique = (values: string[]) => [...new Set(values)].sort();
  return {
    lists,
    typos: new TypoIndex(lists.popular),
    domains,
    seen: { mx_host: unique(seen.mx_host), mx_ip: unique(seen.mx_ip), ns: unique(seen.ns) },
  };
}

let worlds: World[];

beforeAll(async () => {
  const bundled = loadDomainLists();
  const engine = fixtureZones("engine");
  const engineFile = new URL("../fixtures/zones/engine.json", import.meta.url);
  const engineNames = Object.keys((JSON.parse(readFileSync(engineFile, "utf8")) as ZoneFixture).names);
  const mix = domainMix(600);
  const disposable = disposableWorld({ services: 4, legitimate: 150, strays: 10 });
  worlds = [
    await worldOf(bundled, engine, [...engineNames, "does-not-exist.test", "hotmial.com", "yahoo.com"]),
    await worldOf(
      bundled,
      new Zones(mix.fixture),
      mix.entries.map((entry) => entry.input),
    ),
    await worldOf(disposableWorldLists(disposable), new Zones(disposable.fixture), disposable.traffic),
  ];
}, pace.bound(60_000));

/** Hosts that make a routing interesting: providers of each kind, parking, disposable services. */
const SWAPPED_MX = [
  "aspmx.l.google.com",
  "mx.sendgrid.net",
  "route1.mx.cloudflare.net",
  "mx1.hostinger.com",
  "mx.sedoparking.com",
  "mail.mailinator.com",
  "mx1.simplelogin.co",
  "contoso.mail.protection.outlook.com",
];
const SWAPPED_NS = ["ns1.sedoparking.com", "ns1.bodis.com", "ns1.mailinator.com", "ns1.yopmail.com"];

const routingChange = fc.oneof(
  fc.constant({ kind: "none" as const }),
  fc
    .constantFrom("dns_timeout", "dns_failure", "nxdomain", "no_mail", "mx_missing", "null_mx")
    .map((status) => ({ kind: "status" as const, status })),
  fc.record({
    kind: fc.constant("mx" as const),
    host: fc.constantFrom(...SWAPPED_MX),
    resolves: fc.boolean(),
  }),
  fc.record({ kind: fc.constant("ns" as const), host: fc.constantFrom(...SWAPPED_NS) }),
  fc.constant({ kind: "fallback" as const }),
);

type RoutingChange = typeof routingChange extends fc.Arbitrary<infer T> ? T : never;

function changed(routing: MailRouting, change: RoutingChange, domain: string): MailRouting {
  switch (change.kind) {
    case "none":
      return routing;
    case "status":
      return {
        ...routing,
        status: change.status,
        hosts: change.status === "null_mx" || change.status === "nxdomain" ? [] : routing.hosts,
      };
    case "mx": {
      const host: MailHost = { host: change.host, priority: 5, ips: change.resolves ? ["192.0.2.77"] : [] };
      return {
        ...routing,
        status: "mx",
        hosts: [host, ...routing.hosts.filter((h) => h.host !== change.host)],
      };
    }
    case "ns":
      return { ...routing, nameServers: [change.host, ...(routing.nameServers ?? [])] };
    case "fallback":
      return {
        ...routing,
        status: "fallback",
        hosts: [{ host: domain, priority: 0, ips: ["198.51.100.9"] }],
        addresses: ["198.51.100.9"],
      };
  }
}

/** What was learnt and overridden: a pick of the world's infrastructure, and the operator's word on domains. */
interface State {
  learnt: Record<InfrastructureKind, number[]>;
  never: Record<InfrastructureKind, number[]>;
  override: "none" | "allow" | "deny";
  onBase: boolean;
  note: string | null;
}

const picks = fc.array(fc.nat(), { maxLength: 4 });
const state: fc.Arbitrary<State> = fc.record({
  learnt: fc.record({ mx_host: picks, mx_ip: picks, ns: picks }),
  never: fc.record({ mx_host: picks, mx_ip: picks, ns: picks }),
  override: fc.constantFrom("none", "none", "allow", "deny"),
  onBase: fc.boolean(),
  note: fc.option(fc.string({ maxLength: 20 }), { nil: null }),
});

function learnedOf(world: World, s: State, domain: string, baseDomain: string): LearnedInfrastructure {
  const chosen = (from: Record<InfrastructureKind, number[]>) =>
    new Set(
      (Object.keys(from) as InfrastructureKind[]).flatMap((kind) =>
        from[kind]
          .map((index) => world.seen[kind][index % Math.max(1, world.seen[kind].length)])
          .filter((value): value is string => value !== undefined)
          .map((value) => `${kind} ${value}`),
      ),
    );
  const learnt = chosen(s.learnt);
  const never = chosen(s.never);
  const overridden = s.onBase ? baseDomain : domain;
  const action = s.override === "none" ? undefined : s.override;
  return {
    disposableService: (kind, value) =>
      learnt.has(`${kind} ${value}`) && !never.has(`${kind} ${value}`) ? "throwaway.example" : undefined,
    neverDisposable: (kind, value) => never.has(`${kind} ${value}`),
    domainOverride: (d, base) => (action && (d === overridden || base === overridden) ? action : undefined),
    learntExamples: () => ["a.example", "b.example"],
    overrideNote: (kind: OverrideKind, value) =>
      action && kind === "domain" && value === overridden ? { action, note: s.note } : undefined,
  };
}

describe("the evidence of any answer in any state of the world", () => {
  it(
    "has an item when blocked, an item per true flag, and risks adding up",
    () => {
      fc.assert(
        fc.property(
          fc.nat(2),
          fc.nat(),
          routingChange,
          state,
          fc.option(fc.nat(400), { nil: null }),
          fc.constantFrom(null, "jane.doe", "admin", "info+news"),
          (worldIndex, domainIndex, change, s, ageDays, localPart) => {
            const world = worlds[worldIndex] as World;
            const { domain, routing } = world.domains[
              domainIndex % world.domains.length
            ] as World["domains"][number];
            const raw = localPart === null ? domain : `${localPart}@${domain}`;
            const parsed = parseInput(raw, TEST_NAMES_ON);
            if (!parsed.ok) return;
            const base = domain.split(".").slice(-2).join(".");
            const facts: DomainFacts = {
              routing: changed(routing, change, domain),
              createdAt: ageDays === null ? null : new Date(NOW.getTime() - ageDays * DAY_MS - 3_600_000),
            };
            const learned = learnedOf(world, s, domain, base);
            const check = forAddress(
              decideDomain(
                domain,
                facts,
                { lists: world.lists, typos: world.typos, learned, ...TEST_NAMES_ON },
                NOW,
              ),
              parsed.input,
              world.lists,
            );
            expectExplained(
              check.record,
              check.explain(),
              `${raw} ${JSON.stringify({ change, s, ageDays })}`,
            );
          },
        ),
        { numRuns: 3000, seed: 20_261_125 },
      );
    },
    pace.bound(20_000),
  );
});
