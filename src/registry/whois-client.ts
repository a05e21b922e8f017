/**
 * One WHOIS query (RFC 3912): connect to port 43, send the name and CRLF, read until
 * the server closes. Rejects when the signal aborts, the connection fails, or the
 * answer grows past `maxBytes`.
 */
import { connect } from "node:net";
import type { WhoisServer } from "./whois-servers.js";

const MAX_ANSWER_BYTES = 256 * 1024;

export function queryWhois(
  server: WhoisServer,
  domain: string,
  signal: AbortSignal,
  maxBytes = MAX_ANSWER_BYTES,
): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error("WHOIS deadline passed"));
      return;
    }
    const socket = connect({ host: server.host, port: server.port });
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (error: Error) => {
      signal.removeEventListener("abort", onAbort);
      socket.destroy();
      reject(error);
    };
    const onAbort = () => fail(new Error("WHOIS deadline passed"));
    signal.addEventListener("abort", onAbort, { once: true });
    socket.on("connect", () => socket.write(`${domain}\r\n`));
    socket.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) fail(new Error(`WHOIS answer from ${server.host} exceeds ${maxBytes} bytes`));
      else chunks.push(chunk);
    });
    socket.on("error", (error) => fail(new Error(`WHOIS ${server.host}: ${error.message}`)));
    socket.on("end", () => {
      signal.removeEventListener("abort", onAbort);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
  });
}
