/**
 * Measures lines as bytes pass: refuses a line longer than a bound the moment it passes
 * it (`CsvTooLarge`, naming the line), and counts the lines seen. A record is at least as
 * long as each of its lines, so this refuses a one-line file of any size after reading
 * the bound, before a parser or a readline holds it.
 */
import { CsvTooLarge } from "./csv-error.js";

const LF = 0x0a;

export class LineMeter {
  /** Line feeds seen so far. */
  lineFeeds = 0;
  /** Bytes of the current line so far. */
  private current = 0;

  constructor(private readonly maxLineBytes: number) {}

  /** Counts the chunk's lines; throws `CsvTooLarge` when one is over the bound. */
  feed(chunk: Uint8Array): void {
    let start = 0;
    for (let at = chunk.indexOf(LF); at >= 0; at = chunk.indexOf(LF, start)) {
      this.check(this.current + at - start);
      this.lineFeeds++;
      this.current = 0;
      start = at + 1;
    }
    this.current += chunk.length - start;
    this.check(this.current);
  }

  /** Lines begun so far (a last line without its line feed counts). */
  get lines(): number {
    return this.lineFeeds + (this.current > 0 ? 1 : 0);
  }

  private check(length: number): void {
    // A CRLF's CR belongs to the line ending, not the line: one byte of grace.
    if (length > this.maxLineBytes + 1)
      throw new CsvTooLarge("record_bytes", this.lineFeeds + 1, this.maxLineBytes);
  }
}
