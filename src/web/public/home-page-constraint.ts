/**
 * The `homePage` route constraint: `GET /` is shared by the gateway API and the browser
 * home page (docs/api.md "Routes"). A request "wants the home page" when it is a GET (or HEAD)
 * without an `email` or `domain` query whose Accept prefers text/html; the router then
 * picks the site plugin's `GET /` (constrained `{ homePage: "yes" }`) over the checking
 * plugin's, and neither route's hooks need to know about the other.
 */
import type { IncomingMessage } from "node:http";
import type { ConstraintStrategy, HTTPVersion } from "find-my-way";
import { prefersHtml } from "../../http/accept.js";

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

type Handler = Parameters<ReturnType<ConstraintStrategy<HTTPVersion.V1, string>["storage"]>["set"]>[1];

/** The value a route names and a request derives (find-my-way's constraint values are strings). */
const WANTS = "yes";

export const homePageConstraint: ConstraintStrategy<HTTPVersion.V1, string> = {
  name: "homePage",
  storage() {
    const handlers = new Map<string, Handler>();
    return {
      get: (value) => handlers.get(value) ?? null,
      set: (value, handler) => {
        handlers.set(value, handler);
      },
    };
  },
  validate(value: unknown) {
    if (value !== WANTS) throw new Error(`the homePage constraint takes only "${WANTS}"`);
  },
  // Undefined (not derived) for every other request: only unconstrained routes match it.
  deriveConstraint: (request: IncomingMessage) => (wantsHomePage(request) ? WANTS : (undefined as never)),
  mustMatchWhenDerived: false,
};

declare module "fastify" {
  interface RouteConstraint {
    /** Only a request that wants the home page (see `wantsHomePage`). */
    homePage?: typeof WANTS;
  }
}
