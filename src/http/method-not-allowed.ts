/**
 * 405 with `Allow` (SPEC §5): Fastify answers an unknown method on a known path with
 * 404, so every path gets explicit routes for the methods it does not serve. The
 * known routes are collected as they are added; `addMethodNotAllowedRoutes` runs
 * once all of them are registered.
 */
import type { HTTPMethods, onSendHookHandler, RouteOptions } from "fastify";
import { HttpProblem } from "./problems.js";
import type { TypedApp } from "./route-deps.js";

const METHODS: HTTPMethods[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

interface PathRoutes {
  methods: Set<string>;
  checking: boolean;
}

export interface RouteCollector {
  /** The `onRoute` hook that records each added route. */
  onRoute(route: RouteOptions): void;
  /** Adds the 405 routes for what was collected; `onSend` goes on checking paths' answers. */
  addMethodNotAllowedRoutes(app: TypedApp, checkingOnSend: onSendHookHandler): void;
}

export function collectRoutes(): RouteCollector {
  const paths = new Map<string, PathRoutes>();
  return {
    onRoute(route) {
      const entry = paths.get(route.url) ?? { methods: new Set<string>(), checking: false };
      for (const method of [route.method].flat()) entry.methods.add(method);
      entry.checking ||= route.config?.checking === true;
      paths.set(route.url, entry);
    },
    addMethodNotAllowedRoutes(app, checkingOnSend) {
      for (const [url, { methods, checking }] of [...paths]) {
        const others = METHODS.filter((method) => !methods.has(method));
        if (others.length === 0) continue;
        const allow = METHODS.filter((method) => methods.has(method)).join(", ");
        app.route({
          method: others,
          url,
          config: { checking },
          schema: { hide: true },
          ...(checking ? { onSend: checkingOnSend } : {}),
          handler: async () => {
            throw new HttpProblem("method_not_allowed", `${url} answers only ${allow}.`, { allow });
          },
        });
      }
    },
  };
}
