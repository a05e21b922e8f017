/**
 * Reads a list job's upload (docs/jobs.md "Uploads"): a CSV with a header row (the
 * address column found as `check --csv` finds it), or text with one input per line.
 * The body is first written to a private temporary file at the speed it arrives, so the
 * request's timeout measures the client, not the database; then each row becomes an
 * item, read as it is taken: the input to check and the row the results write back.
 * Bytes past `maxBytes` or lines past `maxItems` end the reading with `UploadTooLarge`;
 * a line longer than CSV_MAX_RECORD_BYTES with `CsvTooLarge` as its bytes arrive; more
 * lines than the quota has units left with `QuotaPassed`; more bytes than the server's
 * spool may hold with `SpoolFull` (docs/jobs.md "Limits"). Whatever ends it, the spool
 * is removed.
 * Spool folders are named by their process (`<tmp>/mailrisk-uploads/<pid>-…`), so one
 * that a killed process left behind is found and removed at the next start.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Transform } from "node:stream";
import type { NewJobItem } from "../../store/index.js";
import { CsvError, type CsvLimits } from "../csv/csv-error.js";
import { findColumn } from "../csv/find-column.js";
import { LineMeter } from "../csv/line-meter.js";
import { type CsvInput, type CsvLayout, type CsvRow, readCsv } from "../csv/read-csv.js";
import type { SpoolBytes } from "./upload-gate.js";

export type UploadKind = "csv" | "text";

/** A row as stored: its cells and where it stood (a CsvRow without the progress). */
export type StoredRow = Omit<CsvRow, "bytes">;

/** What the results need of the upload: its header and how it was written. */
export interface UploadShape {
  header: string[];
  layout: CsvLayout;
}

/** A text upload's results: a CSV with one `input` column. */
export const TEXT_SHAPE: UploadShape = {
  header: ["input"],
  layout: { bom: false, recordDelimiter: "\n", delimiter: ",", sniffed: false, encoding: "utf-8" },
};

export class UploadTooLarge extends Error {
  override name = "UploadTooLarge";
}

/** The upload has more lines than the quota has units left (nothing counted, nothing kept). */
export class QuotaPassed extends Error {
  override name = "QuotaPassed";
  constructor(readonly lines: number) {
    super(`the upload has at least ${lines} items`);
  }
}

/** The server's spool holds JOB_SPOOL_MAX_BYTES already (503, try again later). */
export class SpoolFull extends Error {
  override name = "SpoolFull";
}

export interface UploadLimits {
  maxItems: number;
  maxBytes: number;
  csv: CsvLimits;
}

/** What an upload is held against as it arrives: the units left (null: unlimited) and the server's spool. */
export interface UploadHold {
  unitsLeft: number | null;
  spool?: SpoolBytes;
}

/** Where uploads are spooled: one folder per upload, named `<pid>-…` by its process. */
export function spoolRoot(): string {
  return join(tmpdir(), "mailrisk-uploads");
}

/** Whether a process of that id runs (on this machine). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes spool folders left behind (their process was killed mid-upload): those of a
 * process that no longer runs, and any last written more than `maxAgeMs` ago (no request
 * lasts that long; a process id may have been reused). The names removed.
 */
export async function removeStaleSpools(root: string, now: Date, maxAgeMs: number): Promise<string[]> {
  const entries = await readdir(root).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of entries) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid)) continue;
    const path = join(root, name);
    const written = await stat(path).then(
      (info) => info.mtimeMs,
      () => undefined,
    );
    if (written === undefined || (now.getTime() - written <= maxAgeMs && isRunning(pid))) continue;
    await rm(path, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/**
 * Writes the body to a private temporary file, at most `maxBytes` of it, each line at
 * most the CSV's record bound, its lines held against the units left (a CSV's header is
 * no item); the file's path and its removal.
 */
async function spool(body: NodeJS.ReadableStream, kind: UploadKind, limits: UploadLimits, hold: UploadHold) {
  const { maxBytes } = limits;
  const meter = new LineMeter(limits.csv.maxRecordBytes);
  const header = kind === "csv" ? 1 : 0;
  const root = spoolRoot();
  await mkdir(root, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(join(root, `${process.pid}-`));
  const remove = () => rm(dir, { recursive: true, force: true });
  const path = join(dir, "upload");
  let seen = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > maxBytes) {
        done(new UploadTooLarge(`the upload is larger than ${maxBytes} bytes (JOB_MAX_BYTES)`));
        return;
      }
      if (hold.spool && !hold.spool.take(chunk.length)) {
        done(
          new SpoolFull("the server is receiving as many uploads as it holds at once; send it again shortly"),
        );
        return;
      }
      try {
        meter.feed(chunk);
      } catch (error) {
        done(error as Error);
        return;
      }
      if (hold.unitsLeft !== null && meter.lineFeeds - header > hold.unitsLeft) {
        done(new QuotaPassed(meter.lineFeeds - header));
        return;
      }
      done(null, chunk);
    },
  });
  try {
    await spoolInto(body, limit, createWriteStream(path, { mode: 0o600 }));
  } catch (error) {
    await remove();
    throw error;
  }
  return { path, remove };
}

/**
 * Pipes the body through `limit` into `file`. On a refusal the body is not destroyed (that
 * would reset the connection before the answer is read): it is unpiped and left to flow,
 * its bytes dropped, so the client reads the answer while the server's request timeout
 * still bounds how long it may send.
 */
function spoolInto(
  body: NodeJS.ReadableStream,
  limit: Transform,
  file: NodeJS.WritableStream & { destroy(): void },
) {
  return new Promise<void>((resolve, reject) => {
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      body.unpipe(limit);
      body.resume();
      limit.destroy();
      file.destroy();
      reject(error);
    };
    body.on("error", fail);
    limit.on("error", fail);
    file.on("error", fail);
    file.on("finish", () => {
      if (!failed) resolve();
    });
    body.pipe(limit).pipe(file);
  });
}

/**
 * The items in batches of `size` (the last one shorter), at most `maxItems` in all; the
 * spooled file is removed when they end, however they end.
 */
async function* batched(
  chunks: AsyncIterable<NewJobItem[]>,
  size: number,
  maxItems: number,
  remove: () => Promise<void>,
): AsyncGenerator<NewJobItem[]> {
  let count = 0;
  let batch: NewJobItem[] = [];
  try {
    for await (const chunk of chunks) {
      count += chunk.length;
      if (count > maxItems)
        throw new UploadTooLarge(`the upload has more than ${maxItems} lines (JOB_MAX_ITEMS)`);
      for (const item of chunk) {
        batch.push(item);
        if (batch.length === size) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  } finally {
    await remove();
  }
}

async function* textItems(stream: NodeJS.ReadableStream, size: number): AsyncGenerator<NewJobItem[]> {
  let line = 0;
  let chunk: NewJobItem[] = [];
  for await (const text of createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY })) {
    line++;
    const input = text.trim();
    if (input === "") continue;
    const row: StoredRow = { cells: [input], line };
    chunk.push({ input, row: JSON.stringify(row) });
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}

async function* csvItems(csv: CsvInput, column: number, size: number): AsyncGenerator<NewJobItem[]> {
  for await (const rows of csv.chunks(size)) {
    yield rows.map(({ cells, cellCount, line }) => {
      const row: StoredRow = { cells, cellCount, line };
      // A row of the wrong shape is not checked (its result says why), as with `check --csv`.
      return { input: cellCount === undefined ? (cells[column] ?? "") : "", row: JSON.stringify(row) };
    });
  }
}

/**
 * The upload's shape and its items in batches of `batchSize`, read as they are taken (a
 * few hundred rows at a time: a row lives from its parsing to its batch's storing, not
 * longer). A CSV that cannot be read, or names no address column, rejects with
 * `CsvError`; limits end it with `UploadTooLarge`.
 */
export async function readUpload(
  body: NodeJS.ReadableStream,
  kind: UploadKind,
  column: string | undefined,
  limits: UploadLimits,
  batchSize: number,
  hold: UploadHold = { unitsLeft: null },
): Promise<{ shape: UploadShape; batches: AsyncGenerator<NewJobItem[]> }> {
  const { path, remove } = await spool(body, kind, limits, hold);
  const stream = createReadStream(path);
  const batches = (chunks: AsyncIterable<NewJobItem[]>) =>
    batched(chunks, batchSize, limits.maxItems, remove);
  if (kind === "text") return { shape: TEXT_SHAPE, batches: batches(textItems(stream, batchSize)) };
  try {
    const csv = await readCsv(stream, { limits: limits.csv });
    const found = findColumn(csv.header, column);
    if (found instanceof CsvError) {
      csv.close();
      throw found;
    }
    return {
      shape: { header: csv.header, layout: csv.layout },
      batches: batches(csvItems(csv, found, batchSize)),
    };
  } catch (error) {
    stream.destroy();
    await remove();
    throw error;
  }
}
