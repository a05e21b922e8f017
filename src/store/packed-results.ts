/**
 * A checked batch's outcomes as the store keeps them (docs/jobs.md "Writes"): deflated,
 * in libuv's thread pool, so neither the event loop nor the disk pays for their size. A
 * batch of 500 new domains holds 500 records of about 900 bytes of JSON, all of one shape;
 * deflated at level 1 they take several times less, which is what the database's log,
 * its checkpoints and the disk then write (on SQLite the writes are the event loop's).
 */
import { promisify } from "node:util";
import { deflateRaw, inflateRaw } from "node:zlib";

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

/** Deflated outcomes, for the `packed` column. */
export function packResults(text: string): Promise<Buffer> {
  return deflate(text, { level: 1 });
}

/** A batch's outcomes as written: from `packed`, or the text of a batch written before it existed ('' while pending). */
export async function unpackResults(row: {
  results: string | null;
  packed: Uint8Array | null;
}): Promise<string> {
  if (row.packed === null) return row.results ?? "";
  return (await inflate(row.packed)).toString("utf8");
}
