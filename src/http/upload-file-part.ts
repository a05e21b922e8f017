/**
 * The `file` field of a `multipart/form-data` upload (`POST /v2/jobs`), streamed as it
 * arrives: the body is never collected, the parts before it are skipped, the rest of the
 * body is left unread (the connection then closes). The platform's form parser collects
 * the whole body, so this small reader is ours.
 */
import { Readable } from "node:stream";
import { HttpProblem } from "./http-problem.js";

/** Largest header block of one part. */
const MAX_PART_HEADERS = 16 * 1024;

function invalid(detail: string): HttpProblem {
  return new HttpProblem("invalid_body", detail);
}

/** The boundary of a multipart content type; undefined when it names none. */
export function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

/** The `file` part's content type and its bytes as a stream; 400 when the body has no `file` part. */
export async function filePart(
  body: AsyncIterable<Buffer>,
  boundary: string,
): Promise<{ contentType: string; filename: string | null; stream: Readable }> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const chunks = body[Symbol.asyncIterator]();
  // A leading CRLF lets the first boundary match the delimiter like every other.
  let buffer = Buffer.from("\r\n");
  const more = async (): Promise<boolean> => {
    const next = await chunks.next();
    if (next.done) return false;
    buffer = Buffer.concat([buffer, next.value]);
    return true;
  };
  for (;;) {
    let at = buffer.indexOf(delimiter);
    while (at < 0) {
      buffer = buffer.subarray(Math.max(0, buffer.length - delimiter.length + 1));
      if (!(await more())) throw invalid("The multipart/form-data body has no `file` field.");
      at = buffer.indexOf(delimiter);
    }
    buffer = buffer.subarray(at + delimiter.length);
    let end = buffer.indexOf("\r\n\r\n");
    while (end < 0) {
      if (buffer.length > MAX_PART_HEADERS || !(await more())) {
        throw invalid("The multipart/form-data body could not be read.");
      }
      end = buffer.indexOf("\r\n\r\n");
    }
    const headers = buffer.subarray(0, end).toString("latin1");
    buffer = buffer.subarray(end + 4);
    if (headers.startsWith("--")) throw invalid("The multipart/form-data body has no `file` field.");
    if (/content-disposition:[^\r\n]*;\s*name="?file"?(;|\s|$)/i.test(headers)) {
      const contentType = /content-type:\s*([^\r\n;]+)/i.exec(headers)?.[1]?.trim().toLowerCase() ?? "";
      const named = /content-disposition:[^\r\n]*;\s*filename="([^"\r\n]{0,255})"/i.exec(headers)?.[1];
      const filename = named === undefined ? null : Buffer.from(named, "latin1").toString("utf8");
      return { contentType, filename, stream: Readable.from(fileBytes()) };
    }
  }

  async function* fileBytes(): AsyncGenerator<Buffer> {
    for (;;) {
      const at = buffer.indexOf(delimiter);
      if (at >= 0) {
        yield buffer.subarray(0, at);
        return;
      }
      const safe = buffer.length - delimiter.length + 1;
      if (safe > 0) {
        yield buffer.subarray(0, safe);
        buffer = buffer.subarray(safe);
      }
      if (!(await more())) throw invalid("The multipart/form-data body ends inside its `file` field.");
    }
  }
}
