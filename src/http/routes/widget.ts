/**
 * `GET /widget.js`: the sign-up widget (widget/widget.js, docs/clients.md), read once
 * when the app is built. A strong `ETag` (the content's SHA-256) answers a matching
 * `If-None-Match` with 304; browsers keep it a day (`WIDGET_CACHE_CONTROL`), so a new
 * version reaches every page within a day and a revalidation costs a 304.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { packagePath } from "../../package-root.js";
import type { TypedApp } from "../typed-app.js";

export const WIDGET_FILE = packagePath("widget", "widget.js");
export const WIDGET_CONTENT_TYPE = "text/javascript; charset=utf-8";
export const WIDGET_CACHE_CONTROL = "public, max-age=86400";

/** Whether an `If-None-Match` value names `etag` (weak comparison, RFC 9110 §13.1.2), or is `*`. */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch
    .split(",")
    .map((tag) => tag.trim().replace(/^W\//, ""))
    .some((tag) => tag === "*" || tag === etag);
}

export function widgetRoute(app: TypedApp): void {
  const source = readFileSync(WIDGET_FILE);
  const etag = `"${createHash("sha256").update(source).digest("base64url")}"`;
  app.get("/widget.js", { schema: { hide: true } }, async (request, reply) => {
    reply.header("etag", etag).header("cache-control", WIDGET_CACHE_CONTROL);
    if (matchesEtag(request.headers["if-none-match"], etag)) return reply.code(304).send();
    return reply.header("x-content-type-options", "nosniff").type(WIDGET_CONTENT_TYPE).send(source);
  });
}
