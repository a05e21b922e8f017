/** `GET /admin/stats` (docs/api.md "Administration"): adapts src/operator/stats.ts. */
import { StatsSchema, trafficStats } from "../../operator/stats.js";
import type { TypedApp } from "../typed-app.js";
import { adminRoute } from "./admin-schemas.js";
import type { AdminDeps } from "./deps.js";

export function adminStatsRoutes(app: TypedApp, { store, clock, flushTraffic }: AdminDeps): void {
  app.get(
    "/admin/stats",
    adminRoute(
      {
        summary:
          "The traffic of the last 30 days: checks, blocks, disposable providers, domains, accounts, keys",
        description:
          "Per UTC day, from the daily counters every instance adds to (this server's counts written first; another's up to a second late): checks by surface, blocks by reason, and the 20 disposable providers, blocked domains, accounts and keys seen or used most.",
      },
      StatsSchema,
    ),
    async () => {
      await flushTraffic();
      return trafficStats(store, clock());
    },
  );
}
