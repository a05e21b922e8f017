/**
 * Reads the disposable-domain lists out of the installed packages of docs/api.md "Data sources", each the
 * way the package ships it (checked: the exports and files of each version in package-lock).
 */
import { createRequire } from "node:module";
import { DISPOSABLE_PACKAGES, type DisposablePackage } from "../../src/data/generated.js";
import type { SourcePackage } from "./build-lists.js";

const require = createRequire(import.meta.url);

function strings(value: unknown, what: string): string[] {
  const list = value instanceof Set ? [...value] : value;
  if (!Array.isArray(list) || !list.every((v) => typeof v === "string")) {
    throw new Error(`${what} is not a list of strings; has the package changed its format?`);
  }
  return list;
}

/** Where each package keeps its list. */
const READERS: Record<DisposablePackage, () => string[]> = {
  // domains.json: a JSON array (the package's own API only offers validate()).
  "@dahoom/disposable-email": () =>
    strings(require("@dahoom/disposable-email/domains.json"), "@dahoom/disposable-email/domains.json"),
  // blacklist(): the Set its isValid() checks, parents included.
  mailchecker: () => strings(require("mailchecker").blacklist(), "mailchecker blacklist()"),
  // disposableEmailBlocklist(): a JSON array.
  "disposable-email-domains-js": () =>
    strings(require("disposable-email-domains-js").disposableEmailBlocklist(), "disposableEmailBlocklist()"),
  // index.json (exact domains) plus wildcard.json (domains whose every subdomain is disposable);
  // our look-ups cover subdomains anyway, so both are plain entries.
  "disposable-email-domains": () => [
    ...strings(require("disposable-email-domains"), "disposable-email-domains index.json"),
    ...strings(require("disposable-email-domains/wildcard.json"), "disposable-email-domains wildcard.json"),
  ],
  // emailBurnerList: a Set read from emails.txt, one domain a line.
  "burner-email-providers": () =>
    strings(require("burner-email-providers").emailBurnerList, "emailBurnerList"),
};

export function packageVersion(name: string): string {
  const { version } = require(`${name}/package.json`) as { version: unknown };
  if (typeof version !== "string") throw new Error(`${name}/package.json has no version`);
  return version;
}

export function readDisposablePackages(): SourcePackage[] {
  return DISPOSABLE_PACKAGES.map(({ name }) => ({
    name,
    version: packageVersion(name),
    entries: READERS[name](),
  }));
}
