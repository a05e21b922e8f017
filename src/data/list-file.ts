/**
 * The line format shared by every list in `data/`: `#` starts a comment, blank lines are
 * skipped, and fields are separated by a tab or by two or more spaces (so a provider
 * name may hold single spaces).
 */

/** One data line of a list file, with its 1-based line number for error messages. */
export interface ListLine {
  fields: string[];
  line: number;
}

const FIELD_SEPARATOR = /\t+| {2,}/;

export function parseListLines(text: string): ListLine[] {
  const lines: ListLine[] = [];
  let start = 0;
  let number = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    number++;
    const raw = text.slice(start, end);
    const hash = raw.indexOf("#");
    const content = (hash < 0 ? raw : raw.slice(0, hash)).trim();
    if (content !== "") lines.push({ fields: content.split(FIELD_SEPARATOR), line: number });
    start = end + 1;
  }
  return lines;
}

/** An error that names the file and line it is about. */
export class ListFileError extends Error {
  constructor(file: string, line: number, message: string) {
    super(`${file}:${line}: ${message}`);
    this.name = "ListFileError";
  }
}
