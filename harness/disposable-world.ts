/**
 * A generated DNS world for learning disposable infrastructure from traffic
 * (test/service/learning.*, `npm run eval`):
 *
 * - disposable services, each with 15–80 domains on its own MX hosts and addresses; a
 *   share of each service's domains (20–70 %) is on the disposable list, the rest on none
 *   (what learning should catch). Half of the services use their own name servers, half
 *   the registrar's default ones;
 * - legitimate domains on Google Workspace, Microsoft 365, one big shared host, a few
 *   dozen small shared mail hosts, or their own `mail.<domain>`; a few are known-good
 *   (`.edu`, known-good by suffix) on the shared hosts;
 * - the registrar's default name servers, shared by legitimate and disposable domains;
 * - stray listed disposable domains on legitimate infrastructure (the lists name
 *   throwaway domains hosted anywhere): they must not make that infrastructure disposable.
 *
 * Names are syllables and serials under `.com`/`.net` (no popular domain is one edit
 * away), addresses in 198.18.0.0/15 and 203.0.113.0/24; the zone is the whole tree.
 */
import type { DomainLists } from "../src/core/list-interfaces.js";
import { readCuratedLists } from "../src/data/curated.js";
import { createDomainLists, DATA_DIR, readRoleLocalParts } from "../src/data/read-domain-lists.js";
import { addName, addNameServers, wholeTreeFixture, type ZoneNames } from "./mail-zones.js";
import { randomIndex, seededRandom } from "./seeded-random.js";
import type { ZoneFixture } from "./zones.js";

export interface DisposableService {
  name: string;
  domains: string[];
  listed: string[];
  unlisted: string[];
}

export type LegitimateSetup = "google" | "microsoft" | "shared-host" | "small-host" | "own-server";

export interface DisposableWorld {
  fixture: ZoneFixture;
  /** Every domain once, in a random but repeatable order: one pass of traffic. */
  traffic: string[];
  services: DisposableService[];
  /** Disposable domains on no list: the ones learning should flag. */
  unlisted: string[];
  /** Legitimate domains (known-good ones included), by setup: none may ever be flagged. */
  legitimate: Map<string, LegitimateSetup>;
  /** Listed disposable domains on legitimate infrastructure. */
  strays: string[];
  /** The disposable list of this world (service domains listed, strays). */
  listed: string[];
}

export interface DisposableWorldOptions {
  seed?: number;
  services?: number;
  legitimate?: number;
  strays?: number;
}

const SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "be", "do", "fa", "gu", "pe", "so", "wu"];

function word(random: () => number, length = 3): string {
  let text = "";
  for (let i = 0; i < length; i++) text += SYLLABLES[randomIndex(random, SYLLABLES.length)];
  return text;
}

function between(random: () => number, low: number, high: number): number {
  return low + Math.floor(random() * (high - low + 1));
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = randomIndex(random, i + 1);
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

const REGISTRAR_NS = ["ns1.registrar-dns.net", "ns2.registrar-dns.net"];
const CLOUDFLARE_NS = ["ada.ns.cloudflare.com", "bob.ns.cloudflare.com"];
const SHARED_HOST = "mx.bighost.net";
const SMALL_HOSTS = 40;

export function disposableWorld(options: DisposableWorldOptions = {}): DisposableWorld {
  const random = seededRandom(options.seed ?? 20_261_010);
  const names: ZoneNames = {};
  let serial = 0;
  const fresh = (tld = random() < 0.8 ? "com" : "net") => `${word(random)}${serial++}.${tld}`;

  addName(names, SHARED_HOST, { A: ["198.51.100.25"] });
  for (let h = 0; h < SMALL_HOSTS; h++) addName(names, `mx.mailhost${h}.net`, { A: [`203.0.113.${h + 10}`] });

  const services: DisposableService[] = [];
  for (let s = 0; s < (options.services ?? 12); s++) {
    const name = `${word(random, 2)}mail${s}.com`;
    const hosts = [`mx1.${name}`, `mx2.${name}`];
    hosts.forEach((host, i) => {
      addName(names, host, { A: [`198.19.${s}.${i + 1}`] });
    });
    const ownNs = s % 2 === 0;
    if (ownNs) addName(names, `ns1.${name}`, { A: [`198.19.${s}.53`] });
    const count = between(random, 15, 80);
    const listedShare = 0.2 + 0.5 * random();
    const service: DisposableService = { name, domains: [], listed: [], unlisted: [] };
    for (let d = 0; d < count; d++) {
      const domain = fresh();
      // Some services publish one MX host per domain group; every domain reaches the same addresses.
      addName(names, domain, { MX: [`10 ${hosts[d % 2]}`] });
      addNameServers(names, domain, ownNs ? [`ns1.${name}`] : REGISTRAR_NS);
      service.domains.push(domain);
      (random() < listedShare ? service.listed : service.unlisted).push(domain);
    }
    services.push(service);
  }

  const legitimate = new Map<string, LegitimateSetup>();
  const smallHost = () => `mx.mailhost${randomIndex(random, SMALL_HOSTS)}.net`;
  for (let l = 0; l < (options.legitimate ?? 1500); l++) {
    const knownGood = random() < 0.04;
    const domain = knownGood ? `${word(random)}${serial++}.edu` : fresh();
    const draw = random();
    let setup: LegitimateSetup;
    if (draw < 0.3 && !knownGood) {
      setup = "google";
      addName(names, domain, { MX: ["1 aspmx.l.google.com", "5 alt1.aspmx.l.google.com"] });
    } else if (draw < 0.5 && !knownGood) {
      setup = "microsoft";
      const host = `${domain.replace(".", "-")}.mail.protection.outlook.com`;
      addName(names, domain, { MX: [`0 ${host}`] });
      addName(names, host, { A: [`198.18.${Math.floor(l / 250)}.${(l % 250) + 1}`] });
    } else if (draw < 0.7) {
      setup = "shared-host";
      addName(names, domain, { MX: [`10 ${SHARED_HOST}`] });
    } else if (draw < 0.85) {
      setup = "small-host";
      addName(names, domain, { MX: [`10 ${smallHost()}`] });
    } else {
      setup = "own-server";
      addName(names, domain, { MX: [`10 mail.${domain}`] });
      addName(names, `mail.${domain}`, { A: [`198.18.${100 + Math.floor(l / 250)}.${(l % 250) + 1}`] });
    }
    const ns = random();
    addNameServers(names, domain, ns < 0.55 ? REGISTRAR_NS : ns < 0.85 ? CLOUDFLARE_NS : [`ns1.${domain}`]);
    if (ns >= 0.85) addName(names, `ns1.${domain}`, { A: ["198.51.100.53"] });
    legitimate.set(domain, setup);
  }

  // Listed throwaway domains on legitimate infrastructure: the lists name them, their MX is anyone's.
  const strays: string[] = [];
  for (let t = 0; t < (options.strays ?? 40); t++) {
    const domain = fresh();
    const draw = random();
    const mx =
      draw < 0.3
        ? ["1 aspmx.l.google.com"]
        : draw < 0.6
          ? [`10 ${SHARED_HOST}`]
          : draw < 0.9
            ? [`10 ${smallHost()}`]
            : [`10 mail.${domain}`];
    addName(names, domain, { MX: mx });
    if (draw >= 0.9) addName(names, `mail.${domain}`, { A: ["198.51.100.77"] });
    addNameServers(names, domain, REGISTRAR_NS);
    strays.push(domain);
  }

  const listed = [...services.flatMap((s) => s.listed), ...strays];
  const traffic = shuffle([...services.flatMap((s) => s.domains), ...legitimate.keys(), ...strays], random);
  return {
    fixture: wholeTreeFixture(names),
    traffic,
    services,
    unlisted: services.flatMap((s) => s.unlisted),
    legitimate,
    strays,
    listed,
  };
}

/** The bundled curated lists with this world's disposable list (and nothing else on it). */
export function disposableWorldLists(world: DisposableWorld): DomainLists {
  const shared = Object.freeze(["disposable-world"]);
  return createDomainLists({
    curated: readCuratedLists(DATA_DIR),
    disposable: { sources: new Map(world.listed.map((d) => [d, shared])), names: new Map() },
    forwarders: { sources: new Map(), names: new Map() },
    roleLocalParts: readRoleLocalParts(),
  });
}
