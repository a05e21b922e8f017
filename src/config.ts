/**
 * The one place that reads the environment (docs/api.md §9). Each field's variable,
 * default, meaning and parser are in CONFIG_TABLE (src/config-table.ts), from which the
 * docs table is generated; invalid values fail at start-up.
 */
import { CONFIG_TABLE, type ListSource, type LogLevel } from "./config-table.js";
import type { WhoisServer } from "./registry/whois-servers.js";
import type { DatabaseLocation } from "./store/database-url.js";

export { ConfigError } from "./config-table.js";

/** The parsed configuration; each field's variable and meaning: CONFIG_TABLE. */
export interface Config {
  /** PORT. */
  port: number;
  /** HOST. */
  host: string;
  /** PUBLIC_URL without a trailing slash; null when unset. */
  publicUrl: string | null;
  /** STATE_DIR, absolute. */
  stateDir: string;
  /** DATABASE_URL, parsed (unset: SQLite in STATE_DIR). */
  database: DatabaseLocation;
  /** DNS_SERVERS; empty: the system's resolvers. */
  dnsServers: string[];
  /** DNS_TIMEOUT_MS. */
  dnsTimeoutMs: number;
  /** RECORD_TTL, in seconds. */
  recordTtlSeconds: number;
  /** NEGATIVE_TTL, in seconds. */
  negativeTtlSeconds: number;
  /** RDAP_BOOTSTRAP_FILE, absolute; null when unset. */
  rdapBootstrapFile: string | null;
  /** WHOIS_SERVER, parsed; null when unset. */
  whoisServer: WhoisServer | null;
  /** AGE_TIMEOUT_MS. */
  ageTimeoutMs: number;
  /** AGE_LOOKUP. */
  ageLookup: boolean;
  /** ADMIN_TOKEN; null when unset. */
  adminToken: string | null;
  /** PAGE_RATE_LIMIT. */
  pageRateLimit: number;
  /** PAGE_GLOBAL_RATE_LIMIT. */
  pageGlobalRateLimit: number;
  /** PAGE_LOOKUP_CONCURRENCY. */
  pageLookupConcurrency: number;
  /** RECENT_FROM_API. */
  recentFromApi: boolean;
  /** PUBLISHABLE_RATE_LIMIT: per client address per publishable key per minute, per process. */
  publishableRateLimit: number;
  /** BULK_MAX_ITEMS. */
  bulkMaxItems: number;
  /** BULK_CONCURRENT_PER_KEY. */
  bulkConcurrentPerKey: number;
  /** BULK_CONCURRENT_TOTAL. */
  bulkConcurrentTotal: number;
  /** METRICS_TOKEN; null when unset. */
  metricsToken: string | null;
  /** METRICS_PORT; null when unset. */
  metricsPort: number | null;
  /** METRICS_PUBLIC: `/metrics` open on PORT without METRICS_TOKEN. */
  metricsPublic: boolean;
  /** TRUST_PROXY: false (none), a number of hops, or addresses and CIDR ranges. */
  trustProxy: false | number | string[];
  /** MAX_CONNECTIONS; null: from the descriptor limit at start-up (src/http/connection-limits.ts). */
  maxConnections: number | null;
  /** MAX_CONNECTIONS_PER_CLIENT; null: no cap per client address. */
  maxConnectionsPerClient: number | null;
  /** LOG_LEVEL. */
  logLevel: LogLevel;
  /** LIST_SOURCES: the upstream lists synced while the service runs; empty: none. */
  listSources: ListSource[];
  /** TEST_NAMES: test set-ups accept `.test`/`.example` names and documentation MX addresses. */
  testNames: boolean;
  /** LIST_SYNC_INTERVAL in seconds; null: no scheduled sync. */
  listSyncIntervalSeconds: number | null;
  /** LIST_MAX_ENTRIES: the most entries a synced source's version may hold. */
  listMaxEntries: number;
  /** WEBHOOK_WATCH_DAYS. */
  webhookWatchDays: number;
}

type Env = Record<string, string | undefined>;

/** Reads `env` once; relative paths resolve against `cwd`. Touches no file but for checking that a directory exists. */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const parsed = new Map<keyof Config, unknown>();
  const value = <K extends keyof Config>(key: K): Config[K] => {
    if (!parsed.has(key)) {
      const { variable, parse } = CONFIG_TABLE[key];
      const raw = env[variable]?.trim() || null;
      parsed.set(key, parse(raw, { variable, cwd, value }));
    }
    return parsed.get(key) as Config[K];
  };
  const keys = Object.keys(CONFIG_TABLE) as (keyof Config)[];
  return Object.fromEntries(keys.map((key) => [key, value(key)])) as unknown as Config;
}
