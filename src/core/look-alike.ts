/**
 * Look-alike names (docs/security.md, "Look-alike domains"): the confusable skeleton of
 * Unicode TS #39 ("The record"), with a small curated map instead of Unicode's confusables.txt. No
 * npm package ships that file's data in a maintained form without a download at install
 * time, and this machine fetches nothing at build time; the map holds the confusables of
 * the letters and digits popular domain names are made of: Cyrillic and Greek letters
 * drawn like Latin ones, a few Latin variants (dotless ı, ɡ, ɑ), `0`/`o`, `1`/`l` and `rn`/`m`.
 *
 * DNS has no case, so a name may be shown in any: an `i` shown as a capital `I` is drawn
 * like an `l` (`paypaI.com`, the domain `paypai.com`, is drawn like `paypal.com`).
 * `drawnLikeWithCapitalI` tells that apart from the reverse (`mall.com` cannot be shown
 * like `mail.com`). The skeleton adds what no distance of one or two slips finds, an IDN
 * drawn like a popular name (`gmаil.com` with a Cyrillic а, `xn--gmil-63d.com`).
 */
import { domainToUnicode } from "node:url";

/** Character → the Latin prototype it is drawn like (lower case, as names are compared). */
const PROTOTYPE: ReadonlyMap<string, string> = new Map(
  Object.entries({
    // Cyrillic
    а: "a",
    е: "e",
    һ: "h",
    і: "i",
    ј: "j",
    ӏ: "l",
    о: "o",
    р: "p",
    с: "c",
    у: "y",
    х: "x",
    ѕ: "s",
    ԁ: "d",
    ԛ: "q",
    ԝ: "w",
    // Greek
    α: "a",
    η: "n",
    ι: "i",
    ν: "v",
    ο: "o",
    ρ: "p",
    υ: "u",
    γ: "y",
    χ: "x",
    // Latin variants and digits
    ı: "i",
    ɑ: "a",
    ɡ: "g",
    ɩ: "i",
    "0": "o",
    "1": "l",
    // TS #39 maps `m` to `rn`: both spellings meet in the skeleton.
    m: "rn",
  }),
);

/** The ASCII characters the map holds. */
const ASCII_CONFUSABLE = /[01m]/g;

/**
 * The skeleton of an ASCII (A-label) domain: its Unicode form with every confusable
 * character replaced by its prototype. Two names with the same skeleton look alike.
 */
export function skeleton(domain: string): string {
  if (!domain.includes("xn--"))
    return domain.replace(ASCII_CONFUSABLE, (character) => PROTOTYPE.get(character) ?? "");
  const unicode = domainToUnicode(domain) || domain;
  let result = "";
  // Decomposed, so a letter with a mark keeps it (`ü` is no `u`), then composed again.
  for (const character of unicode.normalize("NFD")) result += PROTOTYPE.get(character) ?? character;
  return result.normalize("NFC");
}

/** A skeleton with `i` and `l` made one letter: the names that may look alike once an `i` is shown as `I`. */
export function capitalIKey(skeletonOfName: string): string {
  return skeletonOfName.replaceAll("l", "i");
}

/**
 * Whether the name of skeleton `name` is drawn like the target of skeleton `target` when
 * some of its `i` are shown as capitals: letter by letter the same, or its `i` where the
 * target has an `l`.
 */
export function drawnLikeWithCapitalI(name: string, target: string): boolean {
  if (name.length !== target.length || name === target) return false;
  for (let k = 0; k < name.length; k++) {
    if (name[k] !== target[k] && !(name[k] === "i" && target[k] === "l")) return false;
  }
  return true;
}
