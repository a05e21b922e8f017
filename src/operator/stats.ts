/**
 * The service's traffic over the last 30 days (docs/console.md "Traffic"): checks per day
 * by surface, blocks per day by reason, the disposable providers and blocked domains
 * seen most, and the accounts and keys that used the most. Read from the daily counters
 * every instance adds to (src/service/checking/traffic-counter.ts) and the requests per key and
 * day, never from the records. One wire shape for the desk, `GET /admin/stats` and
 * `mailrisk stats --json`.
 */
import { type Static, Type } from "typebox";
import { nullable } from "../core/schema-types.js";
import { DAY_MS } from "../core/time.js";
import { SURFACES, type Surface } from "../service/checking/traffic-counter.js";
import type { Store, TrafficCount } from "../store/index.js";

/** The days shown, today included. */
export const STATS_DAYS = 30;
/** The length of each list of the most seen. */
export const TOP_SHOWN = 20;

const Count = Type.Integer({ minimum: 0 });
const Day = Type.String({ format: "date", description: "A UTC day, YYYY-MM-DD." });

const ChecksSchema = Type.Object(
  {
    api: Type.Integer({ description: "`GET /` and `POST /v2/`." }),
    bulk: Type.Integer({ description: "Items of `POST /v2/bulk`." }),
    jobs: Type.Integer({ description: "Items of list jobs checked." }),
    pages: Type.Integer({ description: "Result pages (`/domain/<domain>`)." }),
    total: Type.Integer(),
  },
  { description: "Checks by surface." },
);

const BlocksSchema = Type.Unsafe<Record<string, number>>(
  Type.Object(
    {},
    {
      additionalProperties: Type.Integer(),
      description:
        "Blocking answers by the record's `reason` (`Heuristics xN` counted as `Heuristics`), most first.",
    },
  ),
);

export const DayStatsSchema = Type.Object({
  day: Day,
  checks: ChecksSchema,
  blocked: Type.Integer({ description: "Blocking answers, every surface." }),
  blocks: BlocksSchema,
});
export type DayStats = Static<typeof DayStatsSchema>;

export const StatsSchema = Type.Object(
  {
    from: Day,
    to: Day,
    days: Type.Array(DayStatsSchema, { description: "Every day from `from` to `to` (today), oldest first." }),
    totals: Type.Object({ checks: ChecksSchema, blocked: Count, blocks: BlocksSchema }),
    top_disposable_providers: Type.Array(Type.Object({ provider: Type.String(), count: Count }), {
      description: `The ${TOP_SHOWN} disposable providers (the list entry, or the service heuristics saw) answered most.`,
    }),
    top_blocked_domains: Type.Array(Type.Object({ domain: Type.String(), count: Count }), {
      description: `The ${TOP_SHOWN} domains answered with a block most.`,
    }),
    top_accounts: Type.Array(Type.Object({ id: Type.String(), email: Type.String(), used: Type.Integer() }), {
      description: `The ${TOP_SHOWN} accounts whose keys used the most units (units given back subtracted on the day they were given back).`,
    }),
    top_keys: Type.Array(
      Type.Object({
        id: Type.String(),
        prefix: Type.String(),
        name: nullable<string>("string"),
        account_id: nullable<string>("string"),
        revoked: Type.Boolean(),
        used: Type.Integer(),
      }),
      { description: `The ${TOP_SHOWN} keys that used the most units, revoked ones shown as such.` },
    ),
  },
  { description: "The traffic of the last 30 days, from the daily counters of every instance." },
);
export type Stats = Static<typeof StatsSchema>;

function dayText(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function checksOf(counts: Record<Surface, number>): Static<typeof ChecksSchema> {
  const total = SURFACES.reduce((sum, surface) => sum + counts[surface], 0);
  return { ...counts, total };
}

/** Reasons most first, ties by name. */
function sortedBlocks(blocks: Map<string, number>): Record<string, number> {
  const sorted = [...blocks].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(sorted);
}

function addTo(counts: Map<string, number>, name: string, count: number): void {
  counts.set(name, (counts.get(name) ?? 0) + count);
}

/** The days from `first`, each with its checks and blocks. */
function perDay(
  first: number,
  counts: readonly TrafficCount[],
): { days: DayStats[]; totals: Stats["totals"] } {
  const surfaces = Array.from({ length: STATS_DAYS }, () => ({ api: 0, bulk: 0, jobs: 0, pages: 0 }));
  const blocks = Array.from({ length: STATS_DAYS }, () => new Map<string, number>());
  const total = { api: 0, bulk: 0, jobs: 0, pages: 0 };
  const totalBlocks = new Map<string, number>();
  for (const { day, kind, name, count } of counts) {
    const index = Math.floor((day.getTime() - first) / DAY_MS);
    const surfacesOfDay = surfaces[index];
    const blocksOfDay = blocks[index];
    if (!surfacesOfDay || !blocksOfDay) continue;
    if (kind === "surface" && (SURFACES as readonly string[]).includes(name)) {
      surfacesOfDay[name as Surface] += count;
      total[name as Surface] += count;
    } else if (kind === "block") {
      addTo(blocksOfDay, name, count);
      addTo(totalBlocks, name, count);
    }
  }
  const sum = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
  const days = surfaces.map((checks, index) => ({
    day: dayText(first + index * DAY_MS),
    checks: checksOf(checks),
    blocked: sum(blocks[index] ?? new Map()),
    blocks: sortedBlocks(blocks[index] ?? new Map()),
  }));
  return {
    days,
    totals: { checks: checksOf(total), blocked: sum(totalBlocks), blocks: sortedBlocks(totalBlocks) },
  };
}

/** The traffic of the STATS_DAYS UTC days up to `now`'s. */
export async function trafficStats(store: Pick<Store, "traffic">, now: Date): Promise<Stats> {
  const today = now.getTime() - (now.getTime() % DAY_MS);
  const first = today - (STATS_DAYS - 1) * DAY_MS;
  const since = new Date(first);
  const [counts, providers, domains, accounts, keys] = await Promise.all([
    store.traffic.dailyCounts(["surface", "block"], since),
    store.traffic.topNames("provider", since, TOP_SHOWN),
    store.traffic.topNames("domain", since, TOP_SHOWN),
    store.traffic.topAccounts(since, TOP_SHOWN),
    store.traffic.topKeys(since, TOP_SHOWN),
  ]);
  return {
    from: dayText(first),
    to: dayText(today),
    ...perDay(first, counts),
    top_disposable_providers: providers.map(({ name, count }) => ({ provider: name, count })),
    top_blocked_domains: domains.map(({ name, count }) => ({ domain: name, count })),
    top_accounts: accounts.map(({ accountId, email, used }) => ({ id: accountId, email, used })),
    top_keys: keys.map((key) => ({
      id: key.keyId,
      prefix: key.prefix,
      name: key.name,
      account_id: key.accountId,
      revoked: key.revoked,
      used: key.used,
    })),
  };
}
