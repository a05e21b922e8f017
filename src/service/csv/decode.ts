/**
 * The bytes of a CSV as UTF-8, as they come (docs/cleaning.md "CSV files"): UTF-8 is
 * validated in place, never copied nor read as replacement characters; Windows-1252
 * (and Latin-1, as browsers read it) through iconv-lite; UTF-16 through the platform's
 * TextDecoder, which refuses what is not UTF-16.
 */
import { isUtf8 } from "node:buffer";
import iconv from "iconv-lite";
import { CsvError } from "./csv-error.js";

/** The encodings a caller may name (each surface in its words), and the decoder each one names. */
export const CSV_ENCODINGS = {
  "utf-8": "utf-8",
  utf8: "utf-8",
  latin1: "windows-1252",
  "iso-8859-1": "windows-1252",
  "windows-1252": "windows-1252",
  cp1252: "windows-1252",
  "utf-16": "utf-16le",
  "utf-16le": "utf-16le",
  "utf-16be": "utf-16be",
} as const;

export type CsvEncoding = keyof typeof CSV_ENCODINGS;

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const LF = 0x0a;

/** Newlines in `bytes` (every record delimiter and line break inside a cell has one). */
export function newlines(bytes: Buffer, from = 0, to = bytes.length): number {
  let count = 0;
  for (let i = bytes.indexOf(LF, from); i >= 0 && i < to; i = bytes.indexOf(LF, i + 1)) count++;
  return count;
}

/** Whether the bytes start with a BOM, and the decoder: a BOM decides, else the encoding the caller named, else UTF-8. */
export function encodingOf(head: Buffer, given: CsvEncoding | undefined): { bom: boolean; encoding: string } {
  if (head.subarray(0, 3).equals(UTF8_BOM)) return { bom: true, encoding: "utf-8" };
  if (head[0] === 0xff && head[1] === 0xfe) return { bom: true, encoding: "utf-16le" };
  if (head[0] === 0xfe && head[1] === 0xff) return { bom: true, encoding: "utf-16be" };
  return { bom: false, encoding: given === undefined ? "utf-8" : CSV_ENCODINGS[given] };
}

/** Length of the UTF-8 sequence a lead byte starts; 0 for a byte that starts none. */
function sequenceLength(byte: number): number {
  if (byte < 0x80) return 1;
  if (byte >= 0xc2 && byte <= 0xdf) return 2;
  if (byte >= 0xe0 && byte <= 0xef) return 3;
  if (byte >= 0xf0 && byte <= 0xf4) return 4;
  return 0;
}

/** Where the bytes stop being whole UTF-8 sequences: the start of a sequence cut at the end, else the length. */
function wholeSequencesEnd(bytes: Buffer): number {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back] as number;
    if ((byte & 0xc0) !== 0x80) return sequenceLength(byte) > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/** The offset of the first byte that is not valid UTF-8 (RFC 3629: no overlongs, surrogates or > U+10FFFF). */
function firstInvalidUtf8(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    const length = sequenceLength(lead);
    if (length === 0) return i;
    const second = bytes[i + 1] ?? 0;
    if (length >= 2) {
      const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
      const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
      if (second < low || second > high) return i;
      for (let k = 2; k < length; k++) if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) return i;
    }
    i += length;
  }
  return bytes.length;
}

/**
 * Windows-1252 to text, one character per byte. The five bytes it leaves undefined keep
 * their C1 control, as browsers read them; iconv-lite gives U+FFFD, put back by position.
 */
function windows1252(bytes: Buffer): string {
  return iconv
    .decode(bytes, "windows-1252")
    .replace(/\ufffd/g, (_, at: number) => String.fromCharCode(bytes[at] as number));
}

/** Turns bytes into UTF-8 as they come; refuses bytes that are not the encoding with their line. */
export class Decoder {
  private carry = Buffer.alloc(0);
  /** Line of the next byte (1-based). */
  private line = 1;
  private readonly utf16: InstanceType<typeof TextDecoder> | undefined;

  constructor(readonly encoding: string) {
    this.utf16 = encoding.startsWith("utf-16") ? new TextDecoder(encoding, { fatal: true }) : undefined;
  }

  decode(chunk: Buffer, last: boolean): Buffer {
    if (this.encoding === "windows-1252") return this.counted(Buffer.from(windows1252(chunk), "utf8"));
    if (this.utf16) {
      try {
        return this.counted(Buffer.from(this.utf16.decode(chunk, { stream: !last }), "utf8"));
      } catch {
        throw new CsvError(`the CSV is not valid ${this.encoding} after line ${this.line}`);
      }
    }
    const bytes = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    const end = last ? bytes.length : wholeSequencesEnd(bytes);
    const whole = bytes.subarray(0, end);
    if (!isUtf8(whole)) {
      const at = firstInvalidUtf8(whole);
      const byte = (whole[at] as number).toString(16).toUpperCase().padStart(2, "0");
      throw new CsvError(
        `the CSV is not valid UTF-8: line ${this.line + newlines(whole, 0, at)} has the byte 0x${byte}, which UTF-8 does not allow there`,
        [{ kind: "encoding" }],
      );
    }
    this.carry = Buffer.from(bytes.subarray(end));
    return this.counted(whole);
  }

  private counted(utf8: Buffer): Buffer {
    this.line += newlines(utf8);
    return utf8;
  }
}
