/**
 * The `homePage` route constraint: `GET /` is shared by the gateway API and the browser
 * home page (docs/api.md §3). A request "wants the home page" when it is a GET (or HEAD)
 * without an `email` or `domain` query whose Accept prefers text/html; the router then
 * picks the pages plugin's `GET /` (constrained `{ homePage: true }`) over the checking
 * plugin's, and neither route's hooks need to know about the other.
 */
import type { IncomingMessage } from "node:http";
import type { FastifyServerOptions } from "fastify";
import { prefersHtml } from "../accept.js";

function hasInput(url: string): boolean {
  const query = url.indexOf("?");
  if (query === -1) return false;
  const params = new URLSearchParams(url.slice(query + 1));
  return params.has("email") || params.has("domain");
}

/** Derived for every request, so the cheap tests come first. */
export function wantsHomePage(request: IncomingMessage): boolean {
  return (
    (request.method === "GET" || request.method === "HEAD") &&
    prefersHtml(request.headers.accept) &&
    !hasInput(request.url ?? "")
  );
}

type Strategy = NonNullable<FastifyServerOptions["constraints"]>[string];
type Handler = Parameters<ReturnType<Strategy["storage"]>["set"]>[1];

export const homePageConstraint: Strategy = {
  name: "homePage",
  storage() {
    const handlers = new Map<unknown, Handler>();
    return {
      get: (value) => handlers.get(value) ?? null,
      set: (value, handler) => {
        handlers.set(value, handler);
      },
    };
  },
  validate(value: unknown) {
    if (value !== true) throw new Error("the homePage constraint takes only `true`");
  },
  // Undefined (not derived) for every other request: only unconstrained routes match it.
  deriveConstraint: (request: IncomingMessage) => (wantsHomePage(request) ? true : undefined),
  mustMatchWhenDerived: false,
};

declare module "fastify" {
  interface RouteConstraint {
    /** Only a request that wants the home page (see `wantsHomePage`). */
    homePage?: true;
  }
}
