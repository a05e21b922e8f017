/**
 * The checking plugin (docs/api.md §3, §6): the API routes that take a key and count
 * against its quota. Encapsulated in two scopes, so each hook is registered once:
 *
 *   checking scope   `onSend`: rate-limit headers and the refund of a 5xx, on every
 *                    answer of a checking path, the 405 answers included
 *     access scope   `onRequest`: authentication (401) and quota (429), counting the
 *                    units the route's config names (default 1)
 *       GET /  (gateway)   POST /v2/  (direct)
 *
 * Errors go to the app's error handler, which maps them by type (problems.ts).
 */
import { accessHook, rateLimitHeadersHook } from "./access.js";
import { withMethodNotAllowed } from "./method-not-allowed.js";
import type { CheckingDeps, TypedApp } from "./route-deps.js";
import { directCheckRoute } from "./routes/direct-check.js";
import { gatewayCheckRoute } from "./routes/gateway-check.js";

export async function checkingPlugin(app: TypedApp, deps: CheckingDeps): Promise<void> {
  app.decorateRequest("caller", null);
  app.addHook("onSend", rateLimitHeadersHook(deps));
  await withMethodNotAllowed(app, async (checking) => {
    await checking.register(async (access) => {
      access.addHook("onRequest", accessHook(deps));
      gatewayCheckRoute(access, deps);
      directCheckRoute(access, deps);
    });
  });
}
