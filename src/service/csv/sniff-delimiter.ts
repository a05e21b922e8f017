/** The delimiter of a CSV when none is given (docs/cleaning.md "CSV files"): sniffed from its first lines. */

/** The delimiters sniffed, the first wins a tie. */
export const SNIFFED_DELIMITERS = [",", ";", "\t", "|"] as const;

/** Counts of `delimiter` in each of the first lines of `text`, outside quotes. */
function countsPerLine(text: string, delimiter: string, lines: number): number[] {
  const counts: number[] = [0];
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && char === "\n") {
      if (counts.length === lines) break;
      counts.push(0);
    } else if (!quoted && char === delimiter) counts[counts.length - 1] = (counts.at(-1) ?? 0) + 1;
  }
  return counts;
}

/**
 * The delimiter of the first lines: of `,` `;` tab `|`, the one the header holds and the
 * most following lines hold as often, then the one the header holds most; `,` when the
 * header holds none (a file of one column).
 */
export function sniffDelimiter(text: string): string {
  let best: { delimiter: string; consistent: number; count: number } = {
    delimiter: ",",
    consistent: -1,
    count: 0,
  };
  for (const delimiter of SNIFFED_DELIMITERS) {
    const [header = 0, ...rest] = countsPerLine(text, delimiter, 20);
    if (header === 0) continue;
    const consistent = rest.filter((count) => count === header).length;
    if (consistent > best.consistent || (consistent === best.consistent && header > best.count)) {
      best = { delimiter, consistent, count: header };
    }
  }
  return best.delimiter;
}
