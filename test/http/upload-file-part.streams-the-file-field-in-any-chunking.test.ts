/** The `file` field of a multipart upload, read as it streams, whatever the chunks' sizes. */
import { text } from "node:stream/consumers";
import { expect, it } from "vitest";
import { HttpProblem } from "../../src/http/http-problem.js";
import { boundaryOf, filePart } from "../../src/http/upload-file-part.js";

const BOUNDARY = "----form42";
const FILE = "email\r\na@shop.example\r\n--not-the-boundary\r\nb@shop.example\r\n";

function body(parts: string[]): Buffer {
  return Buffer.from(
    `preamble\r\n${parts.map((part) => `--${BOUNDARY}\r\n${part}\r\n`).join("")}--${BOUNDARY}--\r\n`,
  );
}

async function* chunks(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

it("finds the boundary in the content type, quoted or not", () => {
  expect(boundaryOf(`multipart/form-data; boundary=${BOUNDARY}`)).toBe(BOUNDARY);
  expect(boundaryOf('multipart/form-data; boundary="a b"; charset=utf-8')).toBe("a b");
  expect(boundaryOf("multipart/form-data")).toBeUndefined();
});

it("yields exactly the file's bytes after other fields, in chunks of any size", async () => {
  const form = body([
    'Content-Disposition: form-data; name="note"\r\n\r\nhello',
    'Content-Disposition: form-data; name="file"; filename="list.csv"\r\nContent-Type: text/csv\r\n\r\n' +
      FILE,
  ]);
  for (const size of [1, 2, 3, 7, 16, 64, form.length]) {
    const part = await filePart(chunks(form, size), BOUNDARY);
    expect(part.contentType).toBe("text/csv");
    expect(await text(part.stream)).toBe(FILE);
  }
});

it("refuses a body without a file field, and one that ends inside it", async () => {
  const noFile = body(['Content-Disposition: form-data; name="note"\r\n\r\nhello']);
  await expect(filePart(chunks(noFile, 5), BOUNDARY)).rejects.toBeInstanceOf(HttpProblem);
  const cut = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"\r\n\r\nemail\r\na@b.example`,
  );
  const part = await filePart(chunks(cut, 4), BOUNDARY);
  await expect(text(part.stream)).rejects.toBeInstanceOf(HttpProblem);
});
