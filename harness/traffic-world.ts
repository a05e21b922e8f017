/**
 * A generated DNS world shaped like a day of real sign-up traffic, for tests and
 * benchmarks that need tens of thousands of distinct, working domains: about 15 % share
 * a few hundred MX hosts of small mail hosts, the rest have their MX at Google
 * Workspace, Microsoft 365 (one host per domain, as Microsoft publishes them), one big
 * shared host, or their own `mail.<domain>`; name servers are a registrar's shared
 * ones, Cloudflare's, or the domain's own. Every name is under `.com` or `.net`, every
 * address in the benchmarking range 198.18.0.0/15; the zone is the whole tree, so nothing else exists.
 */
import { addName, addNameServers, wholeTreeFixture, type ZoneNames } from "./mail-zones.js";
import { randomIndex, seededRandom } from "./seeded-random.js";
import type { ZoneFixture } from "./zones.js";

export interface TrafficWorld {
  /** The distinct domains, in a random but repeatable order. */
  domains: string[];
  fixture: ZoneFixture;
}

export interface TrafficWorldOptions {
  domains: number;
  seed?: number;
  /** How many MX hosts the small shared mail hosts have between them. */
  sharedMxHosts?: number;
}

const SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "be", "do", "fa", "gu", "pe", "so", "wu"];

/** A distinct address per serial in 198.18.0.0/15, the range RFC 2544 sets aside for benchmarks. */
function address(serial: number, block: 0 | 1): string {
  return `198.${18 + block}.${Math.floor(serial / 250) % 256}.${(serial % 250) + 1}`;
}

/** A pronounceable name that no popular domain is a typo of: syllables and the serial. */
function domainName(random: () => number, serial: number): string {
  let word = "";
  for (let i = 0; i < 3; i++) word += SYLLABLES[randomIndex(random, SYLLABLES.length)];
  return `${word}${serial}.${random() < 0.8 ? "com" : "net"}`;
}

export function trafficWorld(options: TrafficWorldOptions): TrafficWorld {
  const random = seededRandom(options.seed ?? 20_261_123);
  const sharedHosts = options.sharedMxHosts ?? 300;
  const names: ZoneNames = {};
  for (let h = 0; h < sharedHosts; h++) {
    addName(names, `mx${h}.mailhost${h % 60}.net`, { A: [address(60_000 + h, 1)] });
  }
  addName(names, "mx.bighost.net", { A: ["198.51.100.25"] });
  const cloudflare = ["ada.ns.cloudflare.com", "bob.ns.cloudflare.com"];
  const registrar = ["ns1.registrar-dns.net", "ns2.registrar-dns.net"];
  const domains: string[] = [];
  for (let serial = 0; serial < options.domains; serial++) {
    const domain = domainName(random, serial);
    domains.push(domain);
    const draw = random();
    if (draw < 0.15) {
      const h = randomIndex(random, sharedHosts);
      addName(names, domain, { MX: [`10 mx${h}.mailhost${h % 60}.net`] });
    } else if (draw < 0.45) {
      addName(names, domain, { MX: ["1 aspmx.l.google.com", "5 alt1.aspmx.l.google.com"] });
    } else if (draw < 0.65) {
      const host = `${domain.replace(".", "-")}.mail.protection.outlook.com`;
      addName(names, domain, { MX: [`0 ${host}`] });
      addName(names, host, { A: [address(serial, 0)] });
    } else if (draw < 0.8) {
      addName(names, domain, { MX: ["10 mx.bighost.net"] });
    } else {
      addName(names, domain, { MX: [`10 mail.${domain}`] });
      addName(names, `mail.${domain}`, { A: [address(serial, 1)] });
    }
    const ns = random();
    if (ns < 0.5) addNameServers(names, domain, registrar);
    else if (ns < 0.8) addNameServers(names, domain, cloudflare);
    else {
      addNameServers(names, domain, [`ns1.${domain}`]);
      addName(names, `ns1.${domain}`, { A: [address(serial, 1)] });
    }
  }
  return { domains, fixture: wholeTreeFixture(names) };
}
