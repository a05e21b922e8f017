/**
 * Answers what fails before Fastify has a request to route: Node's HTTP parser refusing
 * a URL and headers over its limit (431), a request that is not HTTP/1.1 (400), a client
 * too slow to send its request (408). There is no reply object yet, so the answer is
 * written on the socket as raw HTTP/1.1, and the connection then closes, as Node itself
 * does after such an error. It is problem JSON, or the HTML error page when the bytes
 * received show a browser: a result page's path (`/domain/…`) or an Accept header that
 * prefers text/html (read from what the parser had, as far as it got).
 */
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { renderErrorPage } from "../page-kit/error-page.js";
import { HTML_CONTENT_TYPE } from "../page-kit/layout.js";
import { BASIC_PAGE_HEADERS } from "../page-kit/page-headers.js";
import { prefersHtml } from "./accept.js";
import { HttpProblem, PROBLEM_CONTENT_TYPE } from "./http-problem.js";

/** Node's default `maxHeaderSize`: the request line and every header together. */
const MAX_HEADER_BYTES = 16 * 1024;

/** The problem for an error of Node's HTTP parser or request timer. */
export function clientErrorProblem(code: string | undefined): HttpProblem {
  if (code === "HPE_HEADER_OVERFLOW") {
    return new HttpProblem(
      "headers_too_large",
      `The URL and headers together are larger than ${MAX_HEADER_BYTES / 1024} KiB; send a long input in a POST /v2/ body.`,
    );
  }
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return new HttpProblem("request_timeout", "The request did not arrive in time.");
  }
  return new HttpProblem("invalid_request", "The request is not valid HTTP/1.1.");
}

/** Whether the bytes the parser had come from a browser: a result page's path, or an Accept preferring HTML. */
export function rawRequestWantsHtml(raw: Buffer | undefined): boolean {
  if (!raw) return false;
  // Only the text up to the end of the headers, read as bytes; a cut-off header is simply not found.
  const text = raw.subarray(0, raw.indexOf("\r\n\r\n") >= 0 ? raw.indexOf("\r\n\r\n") : raw.length);
  const head = text.toString("latin1");
  if (/^[A-Z]+ \/domain(?:[/?]|\s)/.test(head)) return true;
  const accept = /\r\naccept:[ \t]*([^\r\n]*)/i.exec(head)?.[1];
  return prefersHtml(accept);
}

/** The raw HTTP/1.1 answer carrying a problem (as JSON, or as the HTML error page), with `Connection: close`. */
export function rawProblemResponse(problem: HttpProblem, html = false): string {
  const body = html ? renderErrorPage(problem).toString() : JSON.stringify(problem.body());
  const headers = html
    ? [
        `Content-Type: ${HTML_CONTENT_TYPE}`,
        ...Object.entries(BASIC_PAGE_HEADERS).map(([k, v]) => `${k}: ${v}`),
      ]
    : [`Content-Type: ${PROBLEM_CONTENT_TYPE}`];
  return [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? "Error"}`,
    ...headers,
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/** Fastify's `clientErrorHandler`: the problem on the raw socket, then the socket closes. */
export function clientErrorHandler(
  this: FastifyInstance,
  error: Error & { code?: string; rawPacket?: unknown },
  socket: Socket,
): void {
  // A reset connection has no one to answer (as Fastify's own handler does).
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const problem = clientErrorProblem(error.code);
  this.log.debug({ code: problem.code, errorCode: error.code }, "client error before routing");
  if (socket.writable)
    socket.end(
      rawProblemResponse(
        problem,
        rawRequestWantsHtml(Buffer.isBuffer(error.rawPacket) ? error.rawPacket : undefined),
      ),
    );
  socket.destroySoon(); // once the answer is written, whatever the client still sends
}
