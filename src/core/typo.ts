/**
 * Typo suggestions against popular mailbox domains (`gmial.com` → `gmail.com`).
 * Uses the optimal-string-alignment distance (Damerau–Levenshtein with adjacent
 * transpositions, the most common typing slip), bounded so a check stays cheap:
 * candidates are bucketed by length and the distance gives up past the bound.
 */
const MAX_DISTANCE = 1;
/** Longer names tolerate one more slip (e.g. `hotmial.co` → `hotmail.com`). */
const LONG_NAME = 10;

export class TypoIndex {
  private readonly byLength = new Map<number, string[]>();
  private readonly popular: ReadonlySet<string>;

  constructor(popular: readonly string[]) {
    this.popular = new Set(popular);
    for (const domain of this.popular) {
      const bucket = this.byLength.get(domain.length) ?? [];
      bucket.push(domain);
      this.byLength.set(domain.length, bucket);
    }
  }

  /** Popular domains within the allowed distance of `domain`, closest first; [] for a popular domain. */
  suggest(domain: string): string[] {
    if (this.popular.has(domain)) return [];
    const bound = domain.length >= LONG_NAME ? MAX_DISTANCE + 1 : MAX_DISTANCE;
    const found: { candidate: string; distance: number }[] = [];
    for (let length = domain.length - bound; length <= domain.length + bound; length++) {
      for (const candidate of this.byLength.get(length) ?? []) {
        const distance = boundedOsaDistance(domain, candidate, bound);
        if (distance <= bound) found.push({ candidate, distance });
      }
    }
    return found
      .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
      .map((f) => f.candidate);
  }
}

/**
 * Optimal string alignment distance between a and b, or `bound + 1` as soon as it is
 * certain to exceed `bound`.
 */
export function boundedOsaDistance(a: string, b: string, bound: number): number {
  if (Math.abs(a.length - b.length) > bound) return bound + 1;
  let previous2: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (previous2[j - 2] ?? 0) + 1);
      }
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > bound) return bound + 1;
    previous2 = previous;
    previous = current;
  }
  return previous[b.length] ?? bound + 1;
}
