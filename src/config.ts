/**
 * The one place that reads the environment (docs/api.md §9). Every variable is documented
 * here and in the README's configuration table; invalid values fail at start-up.
 */
import { statSync } from "node:fs";
import { isIP } from "node:net";
import { dirname, resolve } from "node:path";
import { parseWhoisServer, type WhoisServer } from "./registry/whois-servers.js";
import { type DatabaseLocation, DatabaseUrlError, parseDatabaseUrl } from "./store/database-url.js";

export interface Config {
  /** PORT: TCP port of the HTTP server. */
  port: number;
  /** HOST: address the HTTP server binds. */
  host: string;
  /**
   * STATE_DIR: directory for runtime state (default `./var`, resolved against the working
   * directory; absolute here): the default SQLite database and a refreshed RDAP bootstrap.
   * Created when first needed; never inside the shipped `data/`.
   */
  stateDir: string;
  /**
   * DATABASE_URL, parsed: unset → embedded SQLite at `<STATE_DIR>/mailrisk.db` (directory
   * created on first start); `postgres://…` → PostgreSQL; `sqlite:PATH` → another SQLite
   * file, whose directory must exist.
   */
  database: DatabaseLocation;
  /** DNS_SERVERS: comma list of ip[:port] ([v6]:port); empty → the system's resolvers. */
  dnsServers: string[];
  /** DNS_TIMEOUT_MS: deadline of one DNS query; a check makes two rounds (MX/NS/A, then the MX hosts' addresses). */
  dnsTimeoutMs: number;
  /** RECORD_TTL: seconds a cached record counts as fresh. */
  recordTtlSeconds: number;
  /** NEGATIVE_TTL: seconds a record saying the domain does not exist or takes no mail stays fresh (like DNS negative caching). */
  negativeTtlSeconds: number;
  /**
   * RDAP_BOOTSTRAP_FILE (absolute here): IANA-format bootstrap JSON to read instead of
   * `<STATE_DIR>/rdap-bootstrap.json` (when that exists) or the bundled one.
   */
  rdapBootstrapFile: string | null;
  /** WHOIS_SERVER, parsed from host[:port] (default port 43): asked for every WHOIS query instead of the bundled table. */
  whoisServer: WhoisServer | null;
  /** AGE_TIMEOUT_MS: deadline for one domain-age lookup (RDAP, then WHOIS), which runs beside the check, never in front of it. */
  ageTimeoutMs: number;
  /** AGE_LOOKUP: `off` asks no registry (domain age stays null); default `on`. */
  ageLookup: boolean;
  /**
   * ADMIN_TOKEN: enables the admin API under /admin/ (`Authorization: Bearer <token>`)
   * when set; at least 32 characters, no whitespace.
   */
  adminToken: string | null;
  /**
   * PAGE_RATE_LIMIT: HTML page requests (home and result pages) one client address may
   * make per minute, per instance; more get a 429 page with Retry-After. The API routes
   * are limited by their keys' quotas instead.
   */
  pageRateLimit: number;
  /**
   * BULK_MAX_ITEMS: most items one `POST /v2/bulk` takes (1–10,000, default 1,000); the
   * route's body limit follows from it (about 330 bytes an item).
   */
  bulkMaxItems: number;
  /**
   * METRICS_TOKEN: when set, `/metrics` takes `Authorization: Bearer <token>` (compared in
   * constant time, like ADMIN_TOKEN); at least 32 characters, no whitespace. Unset: open.
   */
  metricsToken: string | null;
  /**
   * METRICS_PORT: when set, `/metrics` is served only on this port (on HOST), by a small
   * server of its own, and no longer on PORT; must differ from PORT. With
   * `serve --workers N` the primary serves it, summing every worker's counters.
   */
  metricsPort: number | null;
  /**
   * TRUST_PROXY: which peers may say who the client is in `X-Forwarded-For` (Fastify's
   * `trustProxy`): unset or `off` trusts none (the client is the socket's peer); a whole
   * number trusts that many proxy hops; else a comma list of addresses and CIDR ranges
   * (`127.0.0.1,10.0.0.0/8`). The client address is what PAGE_RATE_LIMIT counts and the
   * request log records.
   */
  trustProxy: false | number | string[];
  /** LOG_LEVEL: pino level. */
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | null {
  const value = env[name]?.trim();
  return value ? value : null;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** Duration in seconds; accepts plain seconds or a unit suffix (s, m, h, d). */
function duration(env: Env, name: string, fallback: number): number {
  const raw = text(env, name);
  if (raw === null) return fallback;
  const match = /^(\d+)\s*([smhd]?)$/.exec(raw);
  if (!match) throw new ConfigError(`${name} must be seconds or a duration like 30m, 12h, 1d; got "${raw}"`);
  const unit = { "": 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as "" | "s" | "m" | "h" | "d"];
  const value = Number(match[1]) * unit;
  if (value < 1) throw new ConfigError(`${name} must be at least one second`);
  return value;
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === "on") return true;
  if (raw === "off") return false;
  throw new ConfigError(`${name} must be on or off; got "${raw}"`);
}

/** Validates one DNS server entry: `ip`, `ip:port`, `[ipv6]:port` or a bare IPv6 address. */
function dnsServer(entry: string): string {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  const [ip, port] = bracketed
    ? [bracketed[1] ?? "", bracketed[2]]
    : isIP(entry) === 6
      ? [entry, undefined]
      : (entry.split(":") as [string, string | undefined]);
  if (!isIP(ip)) throw new ConfigError(`DNS_SERVERS entry "${entry}" is not an IP address`);
  if (port !== undefined && !(/^\d+$/.test(port) && Number(port) > 0 && Number(port) < 65_536)) {
    throw new ConfigError(`DNS_SERVERS entry "${entry}" has an invalid port`);
  }
  return entry;
}

/**
 * DATABASE_URL through the one parser (src/store/database-url.ts). An explicit SQLite
 * file's directory must exist (a typo must not start an empty database somewhere new);
 * only the default one in STATE_DIR is created, when the store opens.
 */
function database(env: Env, cwd: string, stateDir: string): DatabaseLocation {
  let location: DatabaseLocation;
  try {
    location = parseDatabaseUrl(text(env, "DATABASE_URL"), { cwd, stateDir });
  } catch (error) {
    throw error instanceof DatabaseUrlError ? new ConfigError(error.message) : error;
  }
  if (location.dialect === "sqlite" && !location.createDirectory && location.path !== ":memory:") {
    const directory = dirname(location.path);
    if (!statSync(directory, { throwIfNoEntry: false })?.isDirectory()) {
      throw new ConfigError(`DATABASE_URL: directory ${directory} does not exist; create it first`);
    }
  }
  return location;
}

/** An operator token (ADMIN_TOKEN, METRICS_TOKEN) is its route's only credential: long enough that guessing it is hopeless. */
const MIN_TOKEN_LENGTH = 32;

function operatorToken(env: Env, name: string): string | null {
  const token = text(env, name);
  if (token === null) return null;
  if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
    throw new ConfigError(
      `${name} must be at least ${MIN_TOKEN_LENGTH} characters without spaces (e.g. from "openssl rand -hex 32"); got ${token.length}`,
    );
  }
  return token;
}

function metricsPort(env: Env, port: number): number | null {
  if (text(env, "METRICS_PORT") === null) return null;
  const value = integer(env, "METRICS_PORT", 0, 1, 65_535);
  if (value === port) throw new ConfigError(`METRICS_PORT must differ from PORT (${port})`);
  return value;
}

/** One TRUST_PROXY entry: an IP address or a CIDR range. */
function proxyAddress(entry: string): string {
  const [ip = "", prefix, ...rest] = entry.split("/");
  const version = isIP(ip);
  const maxPrefix = version === 6 ? 128 : 32;
  const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
  if (version === 0 || !prefixOk || rest.length > 0) {
    throw new ConfigError(`TRUST_PROXY entry "${entry}" is not an IP address or CIDR range`);
  }
  return entry;
}

function trustProxy(env: Env): Config["trustProxy"] {
  const raw = text(env, "TRUST_PROXY");
  if (raw === null || raw.toLowerCase() === "off") return false;
  if (/^\d+$/.test(raw)) {
    const hops = integer(env, "TRUST_PROXY", 0, 0, 100);
    return hops === 0 ? false : hops;
  }
  return raw
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map(proxyAddress);
}

function whoisServer(env: Env): WhoisServer | null {
  const raw = text(env, "WHOIS_SERVER");
  if (raw === null) return null;
  try {
    return parseWhoisServer(raw);
  } catch {
    throw new ConfigError(`WHOIS_SERVER must be host[:port] or [ipv6][:port]; got "${raw}"`);
  }
}

/** Reads `env` once; relative paths resolve against `cwd`. Touches no file but for checking that a directory exists. */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const logLevel = text(env, "LOG_LEVEL") ?? "info";
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}; got "${logLevel}"`);
  }
  const stateDir = resolve(cwd, text(env, "STATE_DIR") ?? "./var");
  const rdapBootstrapFile = text(env, "RDAP_BOOTSTRAP_FILE");
  const port = integer(env, "PORT", 8080, 0, 65_535);
  return {
    port,
    host: text(env, "HOST") ?? "127.0.0.1",
    stateDir,
    database: database(env, cwd, stateDir),
    dnsServers: (text(env, "DNS_SERVERS") ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .map(dnsServer),
    dnsTimeoutMs: integer(env, "DNS_TIMEOUT_MS", 1500, 50, 60_000),
    recordTtlSeconds: duration(env, "RECORD_TTL", 86_400),
    negativeTtlSeconds: duration(env, "NEGATIVE_TTL", 3_600),
    rdapBootstrapFile: rdapBootstrapFile === null ? null : resolve(cwd, rdapBootstrapFile),
    whoisServer: whoisServer(env),
    ageTimeoutMs: integer(env, "AGE_TIMEOUT_MS", 3000, 50, 60_000),
    ageLookup: onOff(env, "AGE_LOOKUP", true),
    adminToken: operatorToken(env, "ADMIN_TOKEN"),
    pageRateLimit: integer(env, "PAGE_RATE_LIMIT", 60, 1, 1_000_000),
    bulkMaxItems: integer(env, "BULK_MAX_ITEMS", 1000, 1, 10_000),
    metricsToken: operatorToken(env, "METRICS_TOKEN"),
    metricsPort: metricsPort(env, port),
    trustProxy: trustProxy(env),
    logLevel: logLevel as Config["logLevel"],
  };
}
