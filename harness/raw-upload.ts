/**
 * An upload over a socket of its own, for hostile bodies: the body streams from a
 * generator, and the answer is taken as soon as it comes, even while the body is still
 * being sent (a server that refuses early closes the connection; the write errors that
 * follow are expected, not failures). Also the process figures the tests hold.
 */
import { connect } from "node:net";

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Milliseconds from the request's start to its answer's first bytes. */
  tookMs: number;
}

/** The answer's status, headers and body (chunked or not) from its raw bytes. */
function parseAnswer(raw: Buffer, tookMs: number): RawAnswer {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) throw new Error(`no answer: ${raw.toString("latin1").slice(0, 200)}`);
  const [statusLine = "", ...lines] = raw.subarray(0, end).toString("latin1").split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(":");
    headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (headers["transfer-encoding"] === "chunked") {
    const parts: Buffer[] = [];
    for (let at = 0; at < body.length; ) {
      const lineEnd = body.indexOf("\r\n", at);
      const size = Number.parseInt(body.subarray(at, lineEnd).toString("latin1"), 16);
      if (!size) break;
      parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  }
  return { status: Number(statusLine.split(" ")[1]), headers, text: body.toString("utf8"), tookMs };
}

/**
 * POSTs `body` (chunked) to `url` over a raw socket that reads from its first byte (or,
 * as a busy client, only after `readAfterMs` of sending): a server that answers early and
 * closes is heard whatever the writes meet after.
 */
export function rawUpload(
  url: string,
  headers: Record<string, string>,
  body: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  { readAfterMs = 0 }: { readAfterMs?: number } = {},
): Promise<RawAnswer> {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstByteMs = 0;
    const received: Buffer[] = [];
    let closed = false;
    const socket = connect(Number(port), hostname);
    const finish = () => {
      if (closed) return;
      closed = true;
      try {
        resolve(parseAnswer(Buffer.concat(received), firstByteMs));
      } catch (error) {
        reject(error);
      }
    };
    socket.on("data", (chunk: Buffer) => {
      if (received.length === 0) firstByteMs = performance.now() - started;
      received.push(chunk);
      // One answer per request: once it is whole (a body of its declared length or its last chunk), stop.
      const all = Buffer.concat(received);
      const end = all.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = all.subarray(0, end).toString("latin1").toLowerCase();
      const length = /content-length:\s*(\d+)/.exec(head)?.[1];
      const whole =
        length !== undefined
          ? all.length - end - 4 >= Number(length)
          : all.subarray(-5).toString() === "0\r\n\r\n";
      if (whole) {
        finish();
        socket.destroy();
      }
    });
    socket.on("error", () => {});
    socket.on("close", finish);
    if (readAfterMs > 0) {
      socket.pause();
      setTimeout(() => socket.resume(), readAfterMs);
    }
    const head = [
      `POST ${pathname}${search} HTTP/1.1`,
      `host: ${hostname}:${port}`,
      "transfer-encoding: chunked",
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      "",
      "",
    ].join("\r\n");
    (async () => {
      socket.write(head);
      for await (const piece of body) {
        if (closed || socket.destroyed) return;
        const bytes = typeof piece === "string" ? Buffer.from(piece) : piece;
        if (bytes.length === 0) continue;
        const more = socket.write(
          Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from("\r\n")]),
        );
        if (!more) await new Promise((resume) => socket.once("drain", resume).once("close", resume));
      }
      if (!closed && !socket.destroyed) socket.write("0\r\n\r\n");
    })().catch(() => {});
  });
}

/** The resident memory of a process, in bytes (Linux). */
export async function residentBytes(pid: number): Promise<number> {
  const { readFile } = await import("node:fs/promises");
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** The CPU time a process has spent (user + system), in seconds (Linux). */
export async function cpuSeconds(pid: number): Promise<number> {
  const { readFile } = await import("node:fs/promises");
  const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
