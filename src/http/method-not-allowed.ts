/**
 * 405 with `Allow` (docs/api.md "Errors"): Fastify answers an unknown method on a known path with
 * 404, so every path gets explicit routes for the methods it does not serve. Each
 * plugin declares its routes through `withMethodNotAllowed`, which adds the 405 routes
 * for their paths in the same scope, so they get that scope's hooks and error handler
 * (the checking paths' 405 answers carry the rate-limit headers). A route with
 * constraints does not own its path: requests that do not match the constraint go to
 * the path's other routes (the home page shares `GET /` with the gateway route).
 */
import type { HTTPMethods, RouteOptions } from "fastify";
import { HttpProblem } from "./http-problem.js";
import type { TypedApp } from "./typed-app.js";

const METHODS: HTTPMethods[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

function constrained(route: RouteOptions): boolean {
  return route.constraints !== undefined && Object.keys(route.constraints).length > 0;
}

/** Runs `declare` to add routes to `scope`, then adds 405 routes for the methods their paths do not serve. */
export async function withMethodNotAllowed(
  scope: TypedApp,
  declare: (scope: TypedApp) => void | Promise<void>,
): Promise<void> {
  const paths = new Map<string, Set<string>>();
  scope.addHook("onRoute", (route) => {
    if (constrained(route)) return;
    const methods = paths.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    paths.set(route.url, methods);
  });
  await declare(scope);
  for (const [url, methods] of [...paths]) {
    const others = METHODS.filter((method) => !methods.has(method));
    if (others.length === 0) continue;
    // OPTIONS, where a path serves it, is the CORS preflight (cors.ts), not a method of
    // the resource: `Allow` names the methods a client may call.
    const allow = METHODS.filter((method) => methods.has(method) && method !== "OPTIONS").join(", ");
    scope.route({
      method: others,
      url,
      schema: { hide: true },
      handler: async () => {
        throw new HttpProblem("method_not_allowed", `${url} answers only ${allow}.`, { allow });
      },
    });
  }
}
