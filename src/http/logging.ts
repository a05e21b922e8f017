/**
 * What request logs may contain: method, path without query, remote address (the client
 * behind a trusted proxy, TRUST_PROXY), status, the checked domain and the id of the
 * key that was authenticated (`key_…`, never its secret). Never headers (keys travel in
 * them), never the query or body (email addresses travel in them), never an email
 * local part in a path.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";

declare module "fastify" {
  interface FastifyRequest {
    /** The normalised domain this request checked, for the log; set once the input parsed. */
    checkedDomain: string | null;
  }
}

/** The path of a URL without query, with anything shaped like `local@` masked. */
export function redactUrl(url: string): string {
  const path = url.split("?", 1)[0] ?? "";
  return path.replace(/[^/@]+@/g, "*@");
}

function requestLogValue(request: FastifyRequest) {
  return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip };
}

function replyLogValue(reply: FastifyReply) {
  const domain = reply.request?.checkedDomain;
  // `caller` exists only on the checking routes' requests (src/http/access.ts).
  const keyId = reply.request?.caller?.key.id;
  return {
    statusCode: reply.statusCode,
    ...(domain ? { domain } : {}),
    ...(keyId ? { keyId } : {}),
  };
}

/** A child of the given logger whose `req`/`res` serializers follow the rules above. */
export function requestLogger(logger: Logger): Logger {
  return logger.child({}, { serializers: { req: requestLogValue, res: replyLogValue } });
}
