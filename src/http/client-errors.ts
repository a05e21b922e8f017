/**
 * Answers as problem JSON what fails before Fastify has a request to route: Node's HTTP
 * parser refusing a URL and headers over its limit (431), a request that is not HTTP/1.1
 * (400), a client too slow to send its request (408). There is no reply object yet, so
 * the answer is written on the socket as raw HTTP/1.1, and the connection then closes,
 * as Node itself does after such an error.
 */
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { HttpProblem, PROBLEM_CONTENT_TYPE } from "./problems.js";

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

/** The raw HTTP/1.1 answer carrying a problem, with `Connection: close`. */
export function rawProblemResponse(problem: HttpProblem): string {
  const body = JSON.stringify(problem.body());
  return [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? "Error"}`,
    `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/** Fastify's `clientErrorHandler`: the problem on the raw socket, then the socket closes. */
export function clientErrorHandler(
  this: FastifyInstance,
  error: Error & { code?: string },
  socket: Socket,
): void {
  // A reset connection has no one to answer (as Fastify's own handler does).
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const problem = clientErrorProblem(error.code);
  this.log.debug({ err: error, code: problem.code }, "client error before routing");
  if (socket.writable) socket.end(rawProblemResponse(problem));
  socket.destroySoon(); // once the answer is written, whatever the client still sends
}
