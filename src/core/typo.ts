/**
 * Typo suggestions against popular mailbox domains (`gmial.com` → `gmail.com`).
 * Uses the optimal-string-alignment distance (Damerau–Levenshtein with adjacent
 * transpositions, the most common typing slip), bounded so a check stays cheap:
 * candidates are bucketed by length, most are ruled out by the characters they hold
 * (`characterMask`), and the distance gives up past the bound.
 */
import { capitalIKey, drawnLikeWithCapitalI, skeleton } from "./look-alike.js";

const MAX_DISTANCE = 1;
/**
 * Longer names tolerate one more slip (e.g. `hotmial.co` → `hotmail.com`), unless a
 * disposable list names them: a listed domain one slip from a popular one is a typo
 * domain (`gmial.com`) and keeps its suggestion, but two slips away it is a service of
 * its own (`nomail.com`, `yopmail.com`: not a mistyped `hotmail.com`).
 */
const LONG_NAME = 10;

interface Candidate {
  domain: string;
  mask: number;
}

/**
 * The classes of character a name holds, one bit each (letters apart; digits, hyphen and
 * dot share bits). One edit removes at most one class and adds at most one, so names
 * within `bound` edits differ in at most `2 × bound` bits: a test that costs next to
 * nothing and rules out most candidates before their distance is computed.
 */
function characterMask(name: string): number {
  let mask = 0;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    mask |= 1 << (code >= 97 && code <= 122 ? code - 97 : 26 + (code % 5));
  }
  return mask;
}

function bitCount(value: number): number {
  let v = value - ((value >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

export class TypoIndex {
  private readonly byLength = new Map<number, Candidate[]>();
  private readonly popular: ReadonlySet<string>;
  /** Each look-alike target by its confusable skeleton (./look-alike.ts). */
  private readonly bySkeleton = new Map<string, string>();
  /** The targets whose skeleton holds an `l`, by `capitalIKey` of it: the ones an `I` can imitate. */
  private readonly byCapitalIKey = new Map<string, string[]>();

  /**
   * `popular`: the domains a slip away from which a name is a possible typo;
   * `lookAlikeTargets`: the domains a name drawn like is a look-alike of (default: the
   * popular ones; the lists add the known-good domains).
   */
  constructor(popular: readonly string[], lookAlikeTargets: readonly string[] = popular) {
    this.popular = new Set(popular);
    for (const domain of [...popular, ...lookAlikeTargets]) {
      const drawn = skeleton(domain);
      if (this.bySkeleton.has(drawn)) continue;
      this.bySkeleton.set(drawn, domain);
      if (!drawn.includes("l")) continue;
      const key = capitalIKey(drawn);
      this.byCapitalIKey.set(key, [...(this.byCapitalIKey.get(key) ?? []), domain]);
    }
    for (const domain of this.popular) {
      const bucket = this.byLength.get(domain.length) ?? [];
      bucket.push({ domain, mask: characterMask(domain) });
      this.byLength.set(domain.length, bucket);
    }
  }

  /** The target `domain` is drawn like (the same skeleton, another name), if any. */
  lookAlikeOf(domain: string): string | undefined {
    const drawn = skeleton(domain);
    const popular = this.bySkeleton.get(drawn) ?? this.withCapitalI(drawn);
    return popular === domain ? undefined : popular;
  }

  /** The target a name of skeleton `drawn` is drawn like once some of its `i` are shown as `I`. */
  private withCapitalI(drawn: string): string | undefined {
    if (!drawn.includes("i")) return undefined;
    return this.byCapitalIKey
      .get(capitalIKey(drawn))
      ?.find((target) => drawnLikeWithCapitalI(drawn, skeleton(target)));
  }

  /**
   * The target `domain` is drawn like, then the popular domains within the allowed
   * distance of it, closest first; [] for a popular domain. `listed`: a disposable list names the domain
   * (one slip at most).
   */
  suggest(domain: string, listed = false): string[] {
    if (this.popular.has(domain)) return [];
    const lookAlike = this.lookAlikeOf(domain);
    const slips = this.withinDistance(domain, listed);
    return lookAlike === undefined || slips.includes(lookAlike) ? slips : [lookAlike, ...slips];
  }

  private withinDistance(domain: string, listed: boolean): string[] {
    const bound = domain.length >= LONG_NAME && !listed ? MAX_DISTANCE + 1 : MAX_DISTANCE;
    const mask = characterMask(domain);
    let rows: OsaRows | undefined;
    const found: { candidate: string; distance: number }[] = [];
    for (let length = domain.length - bound; length <= domain.length + bound; length++) {
      for (const candidate of this.byLength.get(length) ?? []) {
        if (bitCount(mask ^ candidate.mask) > 2 * bound) continue;
        rows ??= osaRows(domain.length + bound);
        const distance = osaDistanceWithin(domain, candidate.domain, bound, rows);
        if (distance <= bound) found.push({ candidate: candidate.domain, distance });
      }
    }
    if (found.length === 0) return [];
    return found
      .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
      .map((f) => f.candidate);
  }
}

/**
 * Optimal string alignment distance between a and b, or `bound + 1` when it exceeds
 * `bound`.
 */
export function boundedOsaDistance(a: string, b: string, bound: number): number {
  return osaDistanceWithin(a, b, bound, osaRows(b.length));
}

/** Three rows of the distance table (two before the current one, for transpositions). */
interface OsaRows {
  previous2: number[];
  previous: number[];
  current: number[];
}

function osaRows(maxLength: number): OsaRows {
  const row = () => new Array<number>(maxLength + 1).fill(0);
  return { previous2: row(), previous: row(), current: row() };
}

/**
 * The distance table restricted to the band |i − j| ≤ bound (a cell outside it is
 * already more than `bound` edits away), given up as soon as a whole row exceeds the
 * bound (no alignment through that row can come back under it; a transposition skips
 * a row, but then the row it skips holds a cell at most one larger than its start).
 * `rows` is scratch space for strings up to its length; no allocation per candidate.
 */
function osaDistanceWithin(a: string, b: string, bound: number, rows: OsaRows): number {
  const far = bound + 1;
  if (Math.abs(a.length - b.length) > bound) return far;
  let { previous2, previous, current } = rows;
  for (let j = 0; j <= b.length; j++) previous[j] = j <= bound ? j : far;
  for (let i = 1; i <= a.length; i++) {
    const low = Math.max(1, i - bound);
    const high = Math.min(b.length, i + bound);
    current[low - 1] = low === 1 && i <= bound ? i : far;
    let rowMin = current[low - 1] as number;
    const ai = a.charCodeAt(i - 1);
    for (let j = low; j <= high; j++) {
      const bj = b.charCodeAt(j - 1);
      let value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (ai === bj ? 0 : 1),
      );
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) {
        value = Math.min(value, (previous2[j - 2] as number) + 1);
      }
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (high < b.length) current[high + 1] = far;
    if (rowMin > bound) return far;
    [previous2, previous, current] = [previous, current, previous2];
  }
  return Math.min(previous[b.length] as number, far);
}
