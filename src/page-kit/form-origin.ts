/**
 * Where a form may come from (docs/accounts.md "Sessions and forms"): a POST of a page's
 * form counts only when its `Origin` is this site's, PUBLIC_URL's origin when set, else
 * the request's own. Every form check (the account pages, the operator's desk, and the
 * tests' stand-ins for them) asks this one function.
 */
import type { FastifyRequest } from "fastify";

/** The origin forms must come from: PUBLIC_URL's, else this request's own. */
export function ownOrigin(request: FastifyRequest, publicUrl: string | null): string {
  return publicUrl ? new URL(publicUrl).origin : `${request.protocol}://${request.host}`;
}

/** Whether the request was sent by a page of this site (`Origin` absent, `null` or foreign: no). */
export function comesFromOwnOrigin(request: FastifyRequest, publicUrl: string | null): boolean {
  return request.headers.origin === ownOrigin(request, publicUrl);
}
