/**
 * Upload bodies for the upload tests and `bench:uploads`, built as they stream (never
 * whole in memory): the hostile files of docs/security.md "What a hostile upload costs"
 * and a normal CSV to measure against.
 */

/** A header of `columns` columns, then 300 short rows. */
export function* wideCsv(columns: number): Generator<Buffer> {
  const names: string[] = [];
  for (let i = 0; i < columns; i++) {
    names.push(i === 0 ? "email" : `c${i}`);
    if (names.length === 10_000) {
      yield Buffer.from(`${names.join(",")},`);
      names.length = 0;
    }
  }
  yield Buffer.from(`${names.join(",")}\n`);
  for (let i = 0; i < 300; i++) yield Buffer.from(`user${i}@shop-1.com,x\n`);
}

/** One line of `bytes` bytes (after an `email` header), in 64 KiB pieces. */
export function* oneLine(bytes: number): Generator<Buffer> {
  yield Buffer.from("email\n");
  const piece = Buffer.alloc(64 * 1024, 0x61);
  for (let sent = 0; sent < bytes; sent += piece.length) yield piece;
  yield Buffer.from("\n");
}

/** `lines` lines of text, 10,000 at a time. */
export function* manyLines(lines: number): Generator<Buffer> {
  const block = Buffer.from("user@shop-1.com\n".repeat(10_000));
  for (let sent = 0; sent < lines; sent += 10_000) yield block;
}

/** A CSV of `rows` people (`id,name,email`, CRLF), their addresses at `shop-0.com` … `shop-<domains - 1>.com`. */
export function* normalCsv(rows: number, domains = 50): Generator<Buffer> {
  yield Buffer.from("id,name,email\r\n");
  for (let start = 0; start < rows; start += 10_000) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(rows, start + 10_000); i++)
      lines.push(`${i},"Person ${i}",user${i}@shop-${i % domains}.com`);
    yield Buffer.from(`${lines.join("\r\n")}\r\n`);
  }
}
