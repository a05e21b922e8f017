/**
 * Detection evaluation (`npm run eval`): prints markdown tables for the README.
 *
 * 1. Recall on list entries: a seeded sample of entries of each disposable source package
 *    (as the package ships them), each checked through `checkDomain` with the bundled
 *    lists and the DNS of a working mail domain (its own MX server). Entries the build
 *    removes on purpose (public suffixes, known-good domains and providers, forwarders)
 *    are counted apart.
 * 2. Held out: a seeded sample of the entries that only ONE package lists is left out of
 *    the packages, the lists are rebuilt from what remains (scripts/data/build-lists.ts,
 *    as `npm run data:build` does), and the left-out domains are checked against the
 *    rebuilt lists. What still catches them: a listed parent domain, or the heuristics.
 *    The heuristics look at MX and NS hosts; real DNS of these domains is not available
 *    offline, so each gets its own MX server here and the heuristic share is a floor.
 * 3. False positives: every domain of test/fixtures/known-good.txt (big providers,
 *    universities, governments, companies, public suffixes), with MX at Google Workspace
 *    and with its own MX server. A record that is not valid, is blocked or is flagged
 *    disposable is a false positive (harness/known-good-sample.ts: keepsKnownGoodPromise);
 *    the promise is zero (test/core/known-good.never-blocked.test.ts keeps it).
 *
 * 4. Learning from traffic: the generated world of harness/disposable-world.ts over the
 *    wire (loopback DNS server) through the real service with a SQLite store: recall on
 *    the unlisted disposable domains and false-positive rate on the legitimate ones,
 *    before and after one pass of traffic; then the same evidence judged by other
 *    thresholds (the sweep the thresholds of src/core/learned.ts were chosen from).
 *
 * 5. The lists against the union of their sources: every valid name any source package
 *    lists, looked up in the bundled lists; what they do not flag is what the gate keeps
 *    out on purpose (a public suffix, a reserved name, a known-good domain, a named
 *    institution or a provider), counted by reason, with the names under an academic or
 *    government suffix shown (the honest union leaves out exactly those).
 *
 * EVAL_PER_SOURCE (default 200) and EVAL_HELD_OUT (default 100) set the sample sizes.
 */

import { TEST_NAMES_ON } from "../harness/config.js";
import "../bench/test-names.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DisposableWorld, disposableWorld, disposableWorldLists } from "../harness/disposable-world.js";
import { startDnsServer } from "../harness/dns-server.js";
import { keepsKnownGoodPromise, readKnownGoodSample } from "../harness/known-good-sample.js";
import { checkAsMailDomains, MAIL_SETUPS, type MailSetup } from "../harness/mail-zones.js";
import { MemoryResolver } from "../harness/memory-resolver.js";
import { sample, seededRandom } from "../harness/seeded-random.js";
import { Zones } from "../harness/zones.js";
import { loadConfig } from "../src/config.js";
import { checkDomain } from "../src/core/check.js";
import { parseDomain } from "../src/core/input.js";
import {
  type InfrastructureKind,
  LEARNING_THRESHOLDS,
  type LearnedInfrastructure,
  type LearningThresholds,
} from "../src/core/learned.js";
import type { DomainLists } from "../src/core/list-interfaces.js";
import { baseDomainOf, normaliseDomain } from "../src/core/names.js";
import type { CheckRecord } from "../src/core/record.js";
import { TypoIndex } from "../src/core/typo.js";
import { readCuratedLists } from "../src/data/curated.js";
import { DISPOSABLE_PACKAGES, GENERATED_FILES, parseGeneratedFile } from "../src/data/generated.js";
import {
  createDomainLists,
  DATA_DIR,
  loadDomainLists,
  readRoleLocalParts,
} from "../src/data/read-domain-lists.js";
import type { Checker } from "../src/service/checking/checker.js";
import { createChecker } from "../src/service/checking/create-checker.js";
import { learnedDisposable } from "../src/service/checking/learned-snapshot.js";
import { openStore } from "../src/store/index.js";
import { type BuildResult, buildLists, type SourcePackage } from "./data/build-lists.js";
import { packageVersion, readDisposablePackages } from "./data/packages.js";

const SEED = 20_250_101;
const PER_SOURCE = Number(process.env.EVAL_PER_SOURCE ?? 200);
const HELD_OUT = Number(process.env.EVAL_HELD_OUT ?? 100);

const curated = readCuratedLists(DATA_DIR);
const roleLocalParts = readRoleLocalParts();

function build(packages: readonly SourcePackage[]): BuildResult {
  return buildLists({ packages, curated, tldtsVersion: packageVersion("tldts") });
}

function generated(result: BuildResult, file: string) {
  return parseGeneratedFile(result.files[file] ?? "", file);
}

function listsOf(result: BuildResult): DomainLists {
  return createDomainLists({
    curated,
    disposable: generated(result, GENERATED_FILES.disposable),
    forwarders: generated(result, GENERATED_FILES.forwarders),
    roleLocalParts,
  });
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)} %`;
}

function table(header: string[], rows: (string | number)[][]): string {
  return [header, header.map(() => "---"), ...rows.map((row) => row.map(String))]
    .map((cells) => `| ${cells.join(" | ")} |`)
    .join("\n");
}

function examples(domains: readonly string[], count = 8): string {
  return domains.length === 0
    ? "none"
    : `${domains.slice(0, count).join(", ")}${domains.length > count ? ", …" : ""}`;
}

/** 1. Recall on each package's own entries, against the bundled lists. */
async function recallOnEntries(packages: readonly SourcePackage[], full: BuildResult): Promise<string> {
  const random = seededRandom(SEED);
  const lists = loadDomainLists();
  const { report } = full;
  const byDesign = [
    { label: "public suffix", names: new Set(report.publicSuffix) },
    { label: "known-good or provider", names: new Set(report.knownGood) },
    { label: "forwarder", names: new Set(report.movedToForwarders) },
  ];
  const rows: (string | number)[][] = [];
  const misses: string[] = [];
  const designed: string[] = [];
  const total = { sampled: 0, checked: 0, flagged: 0, blocked: 0, byDesign: 0 };
  for (const pkg of packages) {
    const raw = [...new Set([...pkg.entries].map((e) => e.trim()).filter((e) => e !== ""))];
    const picked = sample(raw, PER_SOURCE, random);
    const domains = [...new Set(picked.map(normaliseDomain).filter((d): d is string => d !== undefined))];
    const records = await checkAsMailDomains(domains, lists, "own-server");
    const counts = new Map(byDesign.map((d) => [d.label, 0]));
    let flagged = 0;
    let blocked = 0;
    for (const domain of domains) {
      const record = records.get(domain) as CheckRecord;
      if (record.block) blocked++;
      if (record.is_disposable) {
        flagged++;
        continue;
      }
      const reason = byDesign.find((d) => d.names.has(domain));
      if (reason) {
        counts.set(reason.label, (counts.get(reason.label) ?? 0) + 1);
        designed.push(`${domain} (${reason.label})`);
      } else {
        misses.push(`${domain} (${pkg.name}: ${record.reason})`);
      }
    }
    const notFlagged = [...counts.values()].reduce((a, b) => a + b, 0);
    rows.push([
      `\`${pkg.name}\``,
      picked.length,
      domains.length,
      `${flagged} (${percent(flagged, domains.length)})`,
      `${percent(flagged, domains.length - notFlagged)}`,
      [...counts]
        .filter(([, n]) => n > 0)
        .map(([label, n]) => `${n} ${label}`)
        .join(", ") || "0",
      domains.length - flagged - notFlagged,
    ]);
    total.sampled += picked.length;
    total.checked += domains.length;
    total.flagged += flagged;
    total.blocked += blocked;
    total.byDesign += notFlagged;
  }
  rows.push([
    "**all**",
    total.sampled,
    total.checked,
    `${total.flagged} (${percent(total.flagged, total.checked)})`,
    percent(total.flagged, total.checked - total.byDesign),
    `${total.byDesign}`,
    total.checked - total.flagged - total.byDesign,
  ]);
  return [
    `### Recall on list entries (${PER_SOURCE} per source, seed ${SEED})`,
    "",
    table(
      [
        "source",
        "sampled",
        "valid domains",
        "flagged disposable",
        "recall of what the lists keep",
        "not flagged by design",
        "missed",
      ],
      rows,
    ),
    "",
    `Checked through \`checkDomain\` with the bundled lists, each domain with its own MX server. Blocked: ${total.blocked} of ${total.checked}.`,
    `Not flagged by design: ${examples(designed)}. Missed: ${examples(misses)}.`,
  ].join("\n");
}

/** 2. Entries only one package lists, left out of the build, checked against the rebuilt lists. */
async function heldOut(packages: readonly SourcePackage[], full: BuildResult): Promise<string> {
  const random = seededRandom(SEED + 1);
  const sources = generated(full, GENERATED_FILES.disposable).sources;
  const held = new Map<string, string>();
  for (const { name } of DISPOSABLE_PACKAGES) {
    const only = [...sources].filter(([, from]) => from.length === 1 && from[0] === name).map(([d]) => d);
    for (const domain of sample(only, HELD_OUT, random)) held.set(domain, name);
  }
  const reduced = packages.map((pkg) => ({
    ...pkg,
    entries: [...pkg.entries].filter((raw) => !held.has(normaliseDomain(raw) ?? "")),
  }));
  const rebuilt = build(reduced);
  const rebuiltDisposable = generated(rebuilt, GENERATED_FILES.disposable).sources;
  const stillListed = [...held.keys()].filter((d) => rebuiltDisposable.get(d) !== undefined);
  if (stillListed.length > 0) throw new Error(`left-out entries still listed: ${examples(stillListed)}`);
  const records = await checkAsMailDomains([...held.keys()], listsOf(rebuilt), "own-server");

  const rows: (string | number)[][] = [];
  const caught: string[] = [];
  const totals = { held: 0, parent: 0, heuristics: 0, blockedOtherwise: 0 };
  for (const { name } of DISPOSABLE_PACKAGES) {
    const domains = [...held].filter(([, from]) => from === name).map(([d]) => d);
    let parent = 0;
    let heuristics = 0;
    let blockedOtherwise = 0;
    for (const domain of domains) {
      const record = records.get(domain) as CheckRecord;
      if (record.reason === "Disposable") {
        parent++;
        caught.push(`${domain} (under ${record.disposable_provider})`);
      } else if (record.is_disposable) {
        heuristics++;
        caught.push(`${domain} (${record.reason})`);
      } else if (record.block) {
        blockedOtherwise++;
      }
    }
    const flagged = parent + heuristics;
    rows.push([
      `\`${name}\``,
      domains.length,
      `${flagged} (${percent(flagged, domains.length)})`,
      parent,
      heuristics,
      blockedOtherwise,
    ]);
    totals.held += domains.length;
    totals.parent += parent;
    totals.heuristics += heuristics;
    totals.blockedOtherwise += blockedOtherwise;
  }
  const flagged = totals.parent + totals.heuristics;
  rows.push([
    "**all**",
    totals.held,
    `${flagged} (${percent(flagged, totals.held)})`,
    totals.parent,
    totals.heuristics,
    totals.blockedOtherwise,
  ]);
  return [
    `### Held out: entries only one source lists, left out of the build (${HELD_OUT} per source, seed ${SEED + 1})`,
    "",
    table(
      [
        "source",
        "left out",
        "still flagged disposable",
        "via a listed parent",
        "via heuristics",
        "blocked otherwise",
      ],
      rows,
    ),
    "",
    "Lists rebuilt without these entries, checked with each domain on its own MX server: the heuristics (MX or NS on",
    "known disposable infrastructure) cannot fire without the domains' real DNS, which is not available offline, so",
    "this is the floor of what the engine catches beyond its lists — a domain on a disposable service's shared MX is",
    `flagged by the heuristics. Caught: ${examples(caught)}`,
  ].join("\n");
}

/** 3. The held-back known-good sample, per section and DNS setup. */
async function falsePositives(): Promise<{ text: string; clean: boolean }> {
  const knownGood = readKnownGoodSample();
  const lists = loadDomainLists();
  const setups = MAIL_SETUPS;
  const results = new Map<MailSetup, Map<string, CheckRecord>>();
  for (const setup of setups) {
    results.set(setup, await checkAsMailDomains([...new Set(knownGood.map((e) => e.domain))], lists, setup));
  }
  const offenders: string[] = [];
  const sections = [...new Set(knownGood.map((e) => e.section))];
  const rows = sections.map((section) => {
    const domains = knownGood.filter((e) => e.section === section).map((e) => e.domain);
    const cells = setups.flatMap((setup) => {
      const records = domains.map((d) => results.get(setup)?.get(d) as CheckRecord);
      for (const record of records) {
        if (!keepsKnownGoodPromise(record)) {
          offenders.push(`${record.domain} (${setup}: ${record.reason}, risk ${record.risk})`);
        }
      }
      return [records.filter((r) => r.block).length, records.filter((r) => r.is_disposable).length];
    });
    return [section, domains.length, ...cells];
  });
  const count = (setup: MailSetup, flag: "block" | "is_disposable") =>
    [...(results.get(setup)?.values() ?? [])].filter((r) => r[flag]).length;
  rows.push([
    "**all**",
    knownGood.length,
    ...setups.flatMap((setup) => [count(setup, "block"), count(setup, "is_disposable")]),
  ]);
  const text = [
    "### False positives on known-good domains (test/fixtures/known-good.txt)",
    "",
    table(
      [
        "section",
        "domains",
        "blocked (MX at Google Workspace)",
        "disposable (Google Workspace)",
        "blocked (own MX server)",
        "disposable (own MX server)",
      ],
      rows,
    ),
    "",
    `False positives: ${offenders.length === 0 ? "none" : offenders.join("; ")}`,
  ].join("\n");
  return { text, clean: offenders.length === 0 };
}

/** Recall on the world's unlisted disposable domains and false positives on its legitimate ones. */
function learningFigures(world: DisposableWorld, records: Map<string, CheckRecord>) {
  const flagged = world.unlisted.filter((d) => records.get(d)?.is_disposable).length;
  const falsePositives = [...world.legitimate.keys()].filter((d) => {
    const record = records.get(d);
    return record?.block || record?.is_disposable;
  });
  return {
    recall: `${flagged} of ${world.unlisted.length} (${percent(flagged, world.unlisted.length)})`,
    fp: `${falsePositives.length} of ${world.legitimate.size} (${percent(falsePositives.length, world.legitimate.size)})`,
    falsePositives: falsePositives.length,
  };
}

async function checkAll(checker: Checker, domains: readonly string[]): Promise<Map<string, CheckRecord>> {
  const records = new Map<string, CheckRecord>();
  for (let start = 0; start < domains.length; start += 64) {
    await Promise.all(
      domains.slice(start, start + 64).map(async (domain) => {
        const parsed = parseDomain(domain, TEST_NAMES_ON);
        if (parsed.ok) records.set(domain, (await checker.check(parsed.input)).record);
      }),
    );
  }
  return records;
}

/** 4. One pass of traffic through the real service, and the thresholds sweep on its evidence. */
async function learning(): Promise<{ text: string; clean: boolean }> {
  const world = disposableWorld();
  const lists = disposableWorldLists(world);
  const dir = await mkdtemp(join(tmpdir(), "mailrisk-eval-"));
  const dns = await startDnsServer(new Zones(world.fixture));
  let now = new Date("2025-06-01T00:00:00Z");
  const config = loadConfig({
    DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}`,
    DNS_SERVERS: dns.address,
    AGE_LOOKUP: "off",
    // The world's names are `.test` names, public here as in the sweep below (TEST_NAMES_ON).
    TEST_NAMES: "on",
  });
  const store = await openStore(config.database);
  try {
    await store.migrate();
    const checker = createChecker({ config, store, lists, clock: () => now });
    const before = learningFigures(world, await checkAll(checker, world.traffic));
    now = new Date(now.getTime() + 60_000);
    await checker.drain();
    const after = learningFigures(world, await checkAll(checker, world.traffic));
    await checker.drain();

    const summaries = await store.infrastructure.listInfrastructure(1);
    const resolver = new MemoryResolver(new Zones(world.fixture));
    const sweep: (string | number)[][] = [];
    for (const minDisposableDomains of [1, 2, 3, 5]) {
      for (const minDisposableShare of [0.05, 0.1, 0.25, 0.5]) {
        const thresholds: LearningThresholds = { minDisposableDomains, minDisposableShare };
        const services = new Map(
          learnedDisposable(summaries, new Set(), thresholds).map((s) => [
            `${s.kind} ${s.value}`,
            s.service ?? s.value,
          ]),
        );
        const learned: LearnedInfrastructure = {
          disposableService: (kind: InfrastructureKind, value: string) => services.get(`${kind} ${value}`),
          neverDisposable: () => false,
          domainOverride: () => undefined,
        };
        const deps = {
          lists,
          typos: new TypoIndex(lists.popular),
          resolver,
          clock: () => now,
          learned,
          ...TEST_NAMES_ON,
        };
        const records = new Map<string, CheckRecord>();
        for (const domain of world.traffic) records.set(domain, (await checkDomain(domain, deps)).record);
        const figures = learningFigures(world, records);
        const chosen =
          minDisposableDomains === LEARNING_THRESHOLDS.minDisposableDomains &&
          minDisposableShare === LEARNING_THRESHOLDS.minDisposableShare;
        sweep.push([
          `${minDisposableDomains}${chosen ? " **(chosen)**" : ""}`,
          `${minDisposableShare * 100} %`,
          services.size,
          figures.recall,
          figures.fp,
        ]);
      }
    }
    const listed = world.services.reduce((n, s) => n + s.listed.length, 0);
    const text = [
      "### Learning from traffic (harness/disposable-world.ts, over the wire through the service)",
      "",
      `${world.services.length} disposable services with ${listed + world.unlisted.length} domains (${listed} listed, ${world.unlisted.length} on no list), ${world.legitimate.size} legitimate domains (Google Workspace, Microsoft 365, a big shared host, small shared hosts, own servers; registrar name servers shared with the services), ${world.strays.length} listed throwaway domains on legitimate infrastructure.`,
      "",
      table(
        ["", "recall on unlisted disposable domains", "false positives on legitimate domains"],
        [
          ["before any traffic", before.recall, before.fp],
          ["after one pass of traffic", after.recall, after.fp],
        ],
      ),
      "",
      "The same evidence judged by other thresholds (distinct listed domains at least, their share at least; never a known-good or provider domain):",
      "",
      table(["listed domains ≥", "share ≥", "infrastructure learnt", "recall", "false positives"], sweep),
    ].join("\n");
    return { text, clean: after.falsePositives === 0 };
  } finally {
    await store.close();
    await dns.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** 5. The bundled lists against the union of the packages they are built from. */
function againstTheUnion(packages: readonly SourcePackage[], full: BuildResult): string {
  const lists = loadDomainLists();
  const union = new Set<string>();
  for (const pkg of packages) {
    for (const raw of pkg.entries) {
      const domain = normaliseDomain(raw.trim());
      if (domain !== undefined) union.add(domain);
    }
  }
  const unflagged = [...union].filter((d) => lists.disposable(d, baseDomainOf(d)) === undefined);
  const { report } = full;
  const reasons = [
    { label: "a public suffix", names: new Set(report.publicSuffix) },
    { label: "a reserved name", names: new Set(report.reserved) },
    { label: "known-good, an institution or a provider", names: new Set(report.knownGood) },
    { label: "a forwarder", names: new Set(report.movedToForwarders) },
  ];
  const rows = reasons.map(({ label, names }) => [label, unflagged.filter((d) => names.has(d)).length]);
  const unexplained = unflagged.filter((d) => !reasons.some(({ names }) => names.has(d)));
  const institutional = unflagged.filter((d) => /(^|\.)(ac|edu|gov|mil|sch|gob|gouv)\./.test(`${d}.`));
  const flagged = union.size - unflagged.length;
  return [
    "### The lists against the union of their sources",
    "",
    `${union.size} valid names in the union of the five packages; the bundled lists flag ${flagged} (${percent(flagged, union.size)}). Not flagged, by the reason the gate gives:`,
    "",
    table(["reason", "names"], [...rows, ["none (a miss)", unexplained.length]]),
    "",
    `Under an academic or government label: ${institutional.length} (${examples(institutional, 20)}). Misses: ${examples(unexplained)}.`,
  ].join("\n");
}

async function main(): Promise<void> {
  const packages = readDisposablePackages().map((pkg) => ({ ...pkg, entries: [...pkg.entries] }));
  const full = build(packages);
  const recall = await recallOnEntries(packages, full);
  const held = await heldOut(packages, full);
  const { text, clean } = await falsePositives();
  const learnt = await learning();
  const union = againstTheUnion(packages, full);
  console.log(`## Detection (\`npm run eval\`)\n\n${[recall, held, text, learnt.text, union].join("\n\n")}`);
  process.exitCode = clean && learnt.clean ? 0 : 1;
}

await main();
