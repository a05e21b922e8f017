/**
 * The configuration, written once: every environment variable with its default and
 * meaning as docs/api.md ("Configuration") shows them (generated from here:
 * `npm run docs:tables`) and the parser `loadConfig()` runs on it; the `Config` type is
 * what the parsers return. Invalid values throw a ConfigError.
 */
import { statSync } from "node:fs";
import { isIP } from "node:net";
import { dirname, resolve } from "node:path";
import { parseWebUrl, withoutCredentials } from "./core/web-url.js";
import { parseWhoisServer } from "./registry/whois-servers.js";
import { type DatabaseLocation, DatabaseUrlError, parseDatabaseUrl } from "./store/database-url.js";

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** What a parser knows besides the variable's value. */
export interface ParseContext {
  /** The variable's name, for error messages. */
  variable: string;
  /** The directory relative paths resolve against. */
  cwd: string;
  /** Another field's parsed value. */
  value: <K extends keyof Config>(key: K) => Config[K];
}

/** Parses a variable's trimmed value (null: unset or blank) into its field. */
export type Parser<T> = (raw: string | null, context: ParseContext) => T;

/** One environment variable: the docs table's row and its parser. */
export interface ConfigEntry<T> {
  /** The environment variable's name. */
  variable: string;
  /** The default, as the docs show it (Markdown). */
  default: string;
  /** What it sets, as the docs show it (Markdown; `§` refers to docs/api.md). */
  meaning: string;
  /** Turns the variable's value into the field of Config. */
  parse: Parser<T>;
}

/** An upstream list synced while the service runs (LIST_SOURCES). */
export interface ListSource {
  name: string;
  url: string;
}

/**
 * The published lists the bundled disposable list is built from, one per upstream
 * project, named like the bundled package each one feeds (docs/data.md, "Synced lists").
 */
export const DEFAULT_LIST_SOURCES: readonly ListSource[] = [
  {
    name: "disposable-email-domains",
    url: "https://raw.githubusercontent.com/ivolo/disposable-email-domains/master/index.json",
  },
  {
    name: "disposable-email-domains-js",
    url: "https://raw.githubusercontent.com/disposable-email-domains/disposable-email-domains/main/disposable_email_blocklist.conf",
  },
  {
    name: "burner-email-providers",
    url: "https://raw.githubusercontent.com/wesbos/burner-email-providers/master/emails.txt",
  },
  { name: "mailchecker", url: "https://raw.githubusercontent.com/FGRibreau/mailchecker/master/list.txt" },
  {
    name: "@dahoom/disposable-email",
    url: "https://raw.githubusercontent.com/disposable/disposable-email-domains/master/domains.txt",
  },
];

/** LIST_SOURCES: `name=url,…` with unique names and http(s) URLs without credentials; `off`: none. */
const listSources: Parser<ListSource[]> = (raw, { variable }) => {
  if (raw === null) return [...DEFAULT_LIST_SOURCES];
  if (raw.toLowerCase() === "off") return [];
  const sources: ListSource[] = [];
  for (const item of raw.split(",")) {
    const equals = item.indexOf("=");
    const name = item.slice(0, equals).trim();
    const url = item.slice(equals + 1).trim();
    if (equals < 0 || !/^[\w@./-]+$/.test(name)) {
      throw new ConfigError(
        `${variable} takes name=url items (a name of letters, digits, @ . / _ -); got "${withoutCredentials(item.trim())}"`,
      );
    }
    const parsed = parseWebUrl(url);
    if (!parsed.ok) throw new ConfigError(`${variable}: the URL of ${name}, ${parsed.reason}`);
    if (sources.some((s) => s.name === name)) throw new ConfigError(`${variable} names ${name} twice`);
    sources.push({ name, url });
  }
  return sources;
};

/** pino's levels, the values LOG_LEVEL takes. */
const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];

/** What ACCESS_LOG takes: the request log's lines per request (src/http/access-log.ts). */
const ACCESS_LOG_CHOICES = ["off", "sampled", "all"] as const;

export type AccessLogChoice = (typeof ACCESS_LOG_CHOICES)[number];

/** An operator token (ADMIN_TOKEN, METRICS_TOKEN) is its route's only credential: long enough that guessing it is hopeless. */
const MIN_TOKEN_LENGTH = 32;

/** Descriptors MAX_CONNECTIONS leaves to the database, DNS and registry sockets, and files. */
export const DESCRIPTOR_HEADROOM = 512;

/** MAX_CONNECTIONS_PER_CLIENT unless TRUST_PROXY is set. */
const DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 256;

/** `raw` as a whole number within [min, max]. */
function wholeNumber(raw: string, variable: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${variable} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(`${variable} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** LIST_MAX_ENTRIES unset (the admin API of tests and tools without a configuration takes it too). */
export const DEFAULT_LIST_MAX_ENTRIES = 500_000;

/**
 * An entry's default and parser with the default written once: the docs show `text` (and
 * a `note`), and the parser reads `text` when the variable is unset.
 */
function defaulting<T>(
  text: string,
  parse: (raw: string, context: ParseContext) => T,
  note?: string,
): Pick<ConfigEntry<T>, "default" | "parse"> {
  return {
    default: `\`${text}\`${note ? ` (${note})` : ""}`,
    parse: (raw, context) => parse(raw ?? text, context),
  };
}

/** A whole number within [min, max]; `fallback` when unset. */
function integer(fallback: number, min: number, max: number) {
  return defaulting(String(fallback), (raw, { variable }) => wholeNumber(raw, variable, min, max));
}

/** Duration in seconds; accepts plain seconds or a unit suffix (s, m, h, d). */
function seconds(raw: string, variable: string): number {
  const match = /^(\d+)\s*([smhd]?)$/.exec(raw);
  if (!match)
    throw new ConfigError(`${variable} must be seconds or a duration like 30m, 12h, 1d; got "${raw}"`);
  const unit = { "": 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as "" | "s" | "m" | "h" | "d"];
  const value = Number(match[1]) * unit;
  if (value < 1) throw new ConfigError(`${variable} must be at least one second`);
  return value;
}

/** A duration (`seconds`); `fallback`, as the docs write it, when unset. */
function duration(fallback: string, note?: string) {
  return defaulting(fallback, (raw, { variable }) => seconds(raw, variable), note);
}

/** A size in bytes: a whole number, or with a decimal unit (`100MB`, `2 GB`, `512kB`); `fallback` when unset. */
function byteSize(fallback: string, max: number) {
  return defaulting(fallback, (raw, { variable }) => {
    const match = /^(\d+)\s*(b|kb|mb|gb|kib|mib|gib)?$/i.exec(raw.trim());
    if (!match)
      throw new ConfigError(`${variable} must be bytes or a size like 100MB, 64KiB, 2GB; got "${raw}"`);
    const units = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };
    const unit = units[(match[2] ?? "b").toLowerCase() as keyof typeof units];
    return wholeNumber(String(Number(match[1]) * unit), variable, 1, max);
  });
}

/** `on` or `off` in any case; `fallback` when unset. */
function onOff(fallback: "on" | "off") {
  return defaulting(fallback, (raw, { variable }) => {
    const value = raw.toLowerCase();
    if (value === "on") return true;
    if (value === "off") return false;
    throw new ConfigError(`${variable} must be on or off; got "${value}"`);
  });
}

/** Validates one DNS server entry: `ip`, `ip:port`, `[ipv6]:port` or a bare IPv6 address. */
function dnsServer(entry: string, variable: string): string {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  const [ip, port] = bracketed
    ? [bracketed[1] ?? "", bracketed[2]]
    : isIP(entry) === 6
      ? [entry, undefined]
      : (entry.split(":") as [string, string | undefined]);
  if (!isIP(ip)) throw new ConfigError(`${variable} entry "${entry}" is not an IP address`);
  if (port !== undefined && !(/^\d+$/.test(port) && Number(port) > 0 && Number(port) < 65_536)) {
    throw new ConfigError(`${variable} entry "${entry}" has an invalid port`);
  }
  return entry;
}

/** The non-empty entries of a comma list. */
function commaList(raw: string): string[] {
  return raw
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/**
 * DATABASE_URL through the one parser (src/store/database-url.ts). An explicit SQLite
 * file's directory must exist (a typo must not start an empty database somewhere new);
 * only the default one in STATE_DIR is created, when the store opens.
 */
function database(raw: string | null, cwd: string, stateDir: string): DatabaseLocation {
  let location: DatabaseLocation;
  try {
    location = parseDatabaseUrl(raw, { cwd, stateDir });
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

/** An operator token, or null when unset. */
const operatorToken: Parser<string | null> = (raw, { variable }) => {
  if (raw === null) return null;
  if (raw.length < MIN_TOKEN_LENGTH || /\s/.test(raw)) {
    throw new ConfigError(
      `${variable} must be at least ${MIN_TOKEN_LENGTH} characters without spaces (e.g. from "openssl rand -hex 32"); got ${raw.length}`,
    );
  }
  return raw;
};

/** One TRUST_PROXY entry: an IP address or a CIDR range. */
function proxyAddress(entry: string, variable: string): string {
  const [ip = "", prefix, ...rest] = entry.split("/");
  const version = isIP(ip);
  const maxPrefix = version === 6 ? 128 : 32;
  const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
  if (version === 0 || !prefixOk || rest.length > 0) {
    throw new ConfigError(`${variable} entry "${entry}" is not an IP address or CIDR range`);
  }
  return entry;
}

/** PUBLIC_URL: an http(s) URL with no query or fragment, kept without its trailing slash. */
const publicUrl: Parser<string | null> = (raw, { variable }) => {
  if (raw === null) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${variable} must be a URL such as https://mailrisk.example.org; got "${raw}"`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash || url.username) {
    throw new ConfigError(`${variable} must be an http or https URL without credentials, query or fragment`);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
};

/** MAX_CONNECTIONS_PER_CLIENT: a number or `off`; unset, off behind a trusted proxy (every connection comes from it). */
const maxConnectionsPerClient: Parser<number | null> = (raw, { variable, value }) => {
  if (raw?.toLowerCase() === "off") return null;
  if (raw === null) return value("trustProxy") === false ? DEFAULT_MAX_CONNECTIONS_PER_CLIENT : null;
  return wholeNumber(raw, variable, 1, 1_000_000);
};

/** TRUST_PROXY: none, a number of hops, or addresses and ranges. */
const trustProxy: Parser<false | number | string[]> = (raw, { variable }) => {
  if (raw === null || raw.toLowerCase() === "off") return false;
  if (/^\d+$/.test(raw)) {
    const hops = wholeNumber(raw, variable, 0, 100);
    return hops === 0 ? false : hops;
  }
  return commaList(raw).map((entry) => proxyAddress(entry, variable));
};

/** The variables, in the order the docs list them; keyed by the field of Config each sets. */
export const CONFIG_TABLE = {
  port: {
    variable: "PORT",
    ...integer(8080, 0, 65_535),
    meaning: "HTTP port (0–65535)",
  },
  host: {
    variable: "HOST",
    meaning: "address the HTTP server binds",
    ...defaulting("127.0.0.1", (raw) => raw),
  },
  publicUrl: {
    variable: "PUBLIC_URL",
    default: "unset",
    meaning:
      "the address the public reaches the service at (`https://mailrisk.example.org`, a path prefix allowed), used in the pages' API examples and in invitation and reset links (required with SMTP_URL); unset, the examples name `$MAILRISK_URL` and the CLI prints links as paths. The `Host` header is never used",
    parse: publicUrl,
  },
  stateDir: {
    variable: "STATE_DIR",
    meaning:
      "directory for runtime state, relative to the working directory: the default SQLite database and a refreshed RDAP bootstrap; created when first needed (by the server or `mailrisk migrate`: every other `mailrisk` command refuses to create a database, so run them where the server runs, or set this or `DATABASE_URL`)",
    ...defaulting("./var", (raw, { cwd }) => resolve(cwd, raw)),
  },
  database: {
    variable: "DATABASE_URL",
    default: "unset → SQLite `<STATE_DIR>/mailrisk.db`",
    meaning:
      "`postgres://…` or `postgresql://…` for PostgreSQL (several instances may share it), `sqlite:PATH` for another SQLite file, whose directory must exist, else the start fails (`sqlite::memory:`: a private in-memory database); §8. The value is never echoed in errors: it may hold a password",
    parse: (raw, { cwd, value }): DatabaseLocation => database(raw, cwd, value("stateDir")),
  },
  dnsServers: {
    variable: "DNS_SERVERS",
    default: "the system's resolvers",
    meaning: "comma list of `ip[:port]` (IPv6: `[addr]:port`, or the bare address)",
    parse: (raw, { variable }) => commaList(raw ?? "").map((entry) => dnsServer(entry, variable)),
  },
  dnsTimeoutMs: {
    variable: "DNS_TIMEOUT_MS",
    ...integer(1500, 50, 60_000),
    meaning:
      "deadline of one DNS query in milliseconds (50–60000; a timer of its own, not c-ares'); a check makes two rounds (MX/NS/A, then the MX hosts' addresses), so its DNS part takes at most twice this",
  },
  recordTtlSeconds: {
    variable: "RECORD_TTL",
    ...duration("86400", "1 day"),
    meaning:
      "seconds (or `30m`, `12h`, `1d`) a cached record stays fresh; a record made while any of its DNS look-ups failed for the time being (timeout, SERVFAIL, REFUSED) stays fresh 60 s",
  },
  negativeTtlSeconds: {
    variable: "NEGATIVE_TTL",
    ...duration("3600", "1 hour"),
    meaning:
      "seconds (or `30m`, `1h`) a record saying the domain does not exist or takes no mail stays fresh, like DNS negative caching: a domain registered a minute ago is valid within this time",
  },
  rdapBootstrapFile: {
    variable: "RDAP_BOOTSTRAP_FILE",
    default:
      "`<STATE_DIR>/rdap-bootstrap.json` when `mailrisk rdap-bootstrap update` wrote one, else the bundled `data/rdap-bootstrap.json`",
    meaning:
      "an RDAP bootstrap file in IANA's format to read instead (relative to the working directory); `rdap-bootstrap update` then writes this file",
    parse: (raw, { cwd }) => (raw === null ? null : resolve(cwd, raw)),
  },
  whoisServer: {
    variable: "WHOIS_SERVER",
    default: "the bundled per-TLD table",
    meaning: "`host[:port]` or `[ipv6][:port]` (port default 43) asked for every WHOIS query",
    parse: (raw, { variable }) => {
      if (raw === null) return null;
      try {
        return parseWhoisServer(raw);
      } catch {
        throw new ConfigError(`${variable} must be host[:port] or [ipv6][:port]; got "${raw}"`);
      }
    },
  },
  ageTimeoutMs: {
    variable: "AGE_TIMEOUT_MS",
    ...integer(3000, 50, 60_000),
    meaning:
      "deadline of one domain-age look-up in milliseconds, RDAP then WHOIS together (50–60000); it runs beside the check, never in front of it: a check waits at most 200 ms for it",
  },
  ageLookup: {
    variable: "AGE_LOOKUP",
    ...onOff("on"),
    meaning:
      "`off` (any case): no registry is ever asked; `domain_age_days` and `domain_created_at` stay `null`",
  },
  adminToken: {
    variable: "ADMIN_TOKEN",
    default: "unset",
    meaning: `enables the admin API under \`/admin/\` (§10), which takes \`Authorization: Bearer <ADMIN_TOKEN>\`; at least ${MIN_TOKEN_LENGTH} characters without whitespace (e.g. \`openssl rand -hex 32\`), else the start fails. Unset: every \`/admin/\` path is a 404`,
    parse: operatorToken,
  },
  pageRateLimit: {
    variable: "PAGE_RATE_LIMIT",
    ...integer(60, 1, 1_000_000),
    meaning:
      "HTML page requests (home and result pages) per minute per client address, per instance (1–1,000,000), and 4 × this per /24 (IPv4) or /64 (IPv6) prefix; more get a 429 page with `Retry-After` (§7, [security.md](security.md#the-page-limiter)). The API is limited by its keys' quotas instead",
  },
  pageGlobalRateLimit: {
    variable: "PAGE_GLOBAL_RATE_LIMIT",
    ...integer(6000, 1, 10_000_000),
    meaning:
      "HTML page requests per minute from all clients together, per instance (1–10,000,000); more get a 503 page with `Retry-After`. It also bounds the limiter's memory: it remembers at most this many addresses and prefixes a minute",
  },
  pageLookupConcurrency: {
    variable: "PAGE_LOOKUP_CONCURRENCY",
    ...integer(16, 1, 1000),
    meaning:
      "DNS look-ups at a time for the pages (1–1,000), a budget of their own beside the API's 64; one client address holds at most half of it ([security.md](security.md#fair-look-ups))",
  },
  recentFromApi: {
    variable: "RECENT_FROM_API",
    ...onOff("off"),
    meaning:
      "`on`: domains checked through the API, `/v2/bulk` and the CLI join the recently checked list of the pages too; `off`: only domains checked through the pages themselves ([security.md](security.md#privacy-of-the-recently-checked-list))",
  },
  publishableRateLimit: {
    variable: "PUBLISHABLE_RATE_LIMIT",
    ...integer(30, 1, 1_000_000),
    meaning:
      "requests per minute one client address may make with one publishable key, per worker process (1–1,000,000); more get 429 `rate_limited` with `Retry-After`; the key's quota counts as well ([security.md](security.md#publishable-keys))",
  },
  bulkMaxItems: {
    variable: "BULK_MAX_ITEMS",
    ...integer(1000, 1, 10_000),
    meaning:
      "most items one `POST /v2/bulk` takes (1–10,000); its body limit follows, about 330 bytes an item (§3.1)",
  },
  bulkConcurrentPerKey: {
    variable: "BULK_CONCURRENT_PER_KEY",
    ...integer(2, 1, 1000),
    meaning:
      "`POST /v2/bulk` requests one key may have in progress at once, per instance (1–1,000); one more gets 429 `too_many_concurrent_requests` with `Retry-After` (§3.1)",
  },
  bulkConcurrentTotal: {
    variable: "BULK_CONCURRENT_TOTAL",
    ...integer(8, 1, 10_000),
    meaning:
      "`POST /v2/bulk` requests in progress at once from all keys, per instance (1–10,000); one more gets 503 `server_busy` with `Retry-After` (§3.1)",
  },
  jobMaxItems: {
    variable: "JOB_MAX_ITEMS",
    ...integer(1_000_000, 1, 100_000_000),
    meaning:
      "most input lines one list job (`POST /v2/jobs`) takes (1–100,000,000); one more: 413, nothing kept ([jobs.md](jobs.md))",
  },
  jobMaxBytes: {
    variable: "JOB_MAX_BYTES",
    ...byteSize("100MB", 100_000_000_000),
    meaning:
      "largest upload of a list job, in bytes or `100MB`, `2GB` (1 byte–100 GB); over it: 413, nothing kept ([jobs.md](jobs.md))",
  },
  csvMaxColumns: {
    variable: "CSV_MAX_COLUMNS",
    ...integer(1000, 1, 100_000),
    meaning:
      "most columns a CSV's header or row may have (`check --csv`, list jobs; 1–100,000); a wider file is refused whole, naming its line: 413 on the API, exit 2 on the CLI ([cleaning.md](cleaning.md#limits))",
  },
  csvMaxRecordBytes: {
    variable: "CSV_MAX_RECORD_BYTES",
    ...byteSize("64KiB", 16_000_000),
    meaning:
      "largest CSV record (or line of a text list), in bytes or `64KiB`, `1MB` (1 byte–16 MB); a longer one refuses the file whole, naming its line, before anything is stored ([cleaning.md](cleaning.md#limits))",
  },
  jobUploadsPerAccount: {
    variable: "JOB_UPLOADS_PER_ACCOUNT",
    ...integer(2, 1, 1000),
    meaning:
      "list-job uploads one account (or a key without one) may send at once, per server; beyond: 429 `too_many_uploads` ([jobs.md](jobs.md#limits))",
  },
  jobSpoolMaxBytes: {
    variable: "JOB_SPOOL_MAX_BYTES",
    ...byteSize("1GiB", 1_000_000_000_000),
    meaning:
      "bytes all uploads being received may hold in the server's spool at once; an upload that would pass it: 503 with `Retry-After` ([jobs.md](jobs.md#limits))",
  },
  jobRetentionSeconds: {
    variable: "JOB_RETENTION",
    ...duration("7d"),
    meaning:
      "how long a list job and its results are kept after it ended (seconds, or `12h`, `7d`); then housekeeping deletes them ([jobs.md](jobs.md))",
  },
  jobFailAfterSeconds: {
    variable: "JOB_FAIL_AFTER",
    ...duration("5m"),
    meaning:
      "how long a list job's batches may keep failing (the database or the resolver unreachable) without one success before the job ends `failed` (seconds, or `90s`, `5m`); a shorter fault pauses it and it resumes, every row once ([jobs.md](jobs.md))",
  },
  metricsToken: {
    variable: "METRICS_TOKEN",
    default: "unset",
    meaning: `\`/metrics\` then takes \`Authorization: Bearer <METRICS_TOKEN>\` (§3.4; compared in constant time, like \`ADMIN_TOKEN\`; 401 \`missing_metrics_token\` / \`invalid_metrics_token\`); at least ${MIN_TOKEN_LENGTH} characters without whitespace, else the start fails. Unset, with neither \`METRICS_PORT\` nor \`METRICS_PUBLIC=on\`: \`/metrics\` is a 404`,
    parse: operatorToken,
  },
  metricsPort: {
    variable: "METRICS_PORT",
    default: "unset",
    meaning:
      "serve `/metrics` only on this port (on `HOST`), by a small server of its own, and not on `PORT` (1–65535, not `PORT`; §3.4). With `serve --workers N` the primary serves it and sums every worker's counters; without it, a scrape of `PORT` sees the one worker that took the connection",
    parse: (raw, { variable, value }): number | null => {
      if (raw === null) return null;
      const port = wholeNumber(raw, variable, 1, 65_535);
      if (port === value("port")) throw new ConfigError(`${variable} must differ from PORT (${port})`);
      return port;
    },
  },
  metricsPublic: {
    variable: "METRICS_PUBLIC",
    ...onOff("off"),
    meaning:
      "`on`: `/metrics` is open on `PORT` without a token (before 2026-11 the default). Off, `/metrics` on `PORT` needs `METRICS_TOKEN`, and is a 404 without it (§3.4)",
  },
  trustProxy: {
    variable: "TRUST_PROXY",
    default: "`off`",
    meaning:
      "who may name the client in `X-Forwarded-For` (Fastify's `trustProxy`): `off` or `0` nobody (the client is the socket's peer); a number of proxy hops (1–100); or a comma list of IP addresses and CIDR ranges (`10.0.0.5,10.1.0.0/16`). The client address is what `PAGE_RATE_LIMIT` and `PUBLISHABLE_RATE_LIMIT` count and the request log records: set it behind a reverse proxy, else every browser shares the proxy's limit ([deploy.md](deploy.md#2-n-instances-behind-a-reverse-proxy))",
    parse: trustProxy,
  },
  maxConnections: {
    variable: "MAX_CONNECTIONS",
    default: `the open-file limit (\`ulimit -n\`) less ${DESCRIPTOR_HEADROOM} (less half, under ${2 * DESCRIPTOR_HEADROOM}), read at start-up; 1,000 where it cannot be read`,
    meaning:
      "open connections one process holds (1–1,000,000); a new one over it is closed at once, before it is read ([security.md](security.md#connections-and-slow-clients)). A value that leaves the database, DNS, registries and files less than the default does fails the start. With `serve --workers N` each worker holds its own",
    parse: (raw, { variable }) => (raw === null ? null : wholeNumber(raw, variable, 1, 1_000_000)),
  },
  maxConnectionsPerClient: {
    variable: "MAX_CONNECTIONS_PER_CLIENT",
    default: `\`${DEFAULT_MAX_CONNECTIONS_PER_CLIENT}\`; \`off\` when \`TRUST_PROXY\` is set`,
    meaning:
      "open connections per client address, per process (1–1,000,000, or `off`); a new one over it is closed at once. Counted by the socket's peer: behind a reverse proxy every connection is the proxy's, so the proxy limits clients (`limit_conn`) or this is raised",
    parse: maxConnectionsPerClient,
  },
  listSources: {
    variable: "LIST_SOURCES",
    default: `the ${DEFAULT_LIST_SOURCES.length} upstream projects the bundled list is built from ([data.md](data.md#synced-lists))`,
    meaning:
      "the upstream disposable lists synced while the service runs: a comma list of `name=url` (http or https, without a user name or password; a name of a bundled package replaces that package's bundled entries), or `off` for none. The URLs are the operator's only, never a request's. A sync makes its names the list policy every process sharing the database decides with ([data.md](data.md#who-sets-the-policy))",
    parse: listSources,
  },
  testNames: {
    variable: "TEST_NAMES",
    ...onOff("off"),
    meaning:
      "**for test set-ups only**: `on` accepts names under `.test` and `.example` (RFC 6761 reserves them for testing and documentation) and MX addresses in the documentation and benchmarking ranges (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 198.18.0.0/15, 2001:db8::/32) as public. Names such as `.local`, `.internal`, `home.arpa`, and loopback, private and link-local MX addresses stay refused ([security.md](security.md#public-names-only)). Never set it on a public instance",
  },
  listSyncIntervalSeconds: {
    variable: "LIST_SYNC_INTERVAL",
    meaning:
      "how often a server syncs `LIST_SOURCES` (seconds, or `30m`, `24h`, `2s`; one instance fetches for all, under a lock in the database), or `off`: only `mailrisk lists update` and `POST /admin/lists/update` sync",
    ...defaulting("24h", (raw, { variable }) =>
      raw.toLowerCase() === "off" ? null : seconds(raw, variable),
    ),
  },
  listMaxEntries: {
    variable: "LIST_MAX_ENTRIES",
    ...integer(DEFAULT_LIST_MAX_ENTRIES, 1_000, 5_000_000),
    meaning:
      "the most entries a synced source's version may hold once gated (1,000–5,000,000): a bigger one is refused as a whole and the version in force stays ([data.md](data.md#synced-lists))",
  },
  webhookWatchDays: {
    variable: "WEBHOOK_WATCH_DAYS",
    ...integer(30, 1, 3650),
    meaning:
      "a domain is watched by the webhooks while it was checked through the service within this many days (1–3650): a flip of its answered block status raises `domain.blocked` or `domain.unblocked` ([webhooks.md](webhooks.md))",
  },
  signup: {
    variable: "SIGNUP",
    meaning:
      "who may create an account ([accounts.md](accounts.md)): `off` nobody (no account pages), `invite` only people `mailrisk accounts invite` names, `open` anyone at `/signup` (needs SMTP_URL for the confirmation code)",
    ...defaulting("off", (raw, { variable, value }) => {
      const mode = raw.toLowerCase();
      if (mode !== "off" && mode !== "invite" && mode !== "open")
        throw new ConfigError(`${variable} must be off, invite or open; got "${raw}"`);
      if (mode === "open" && value("smtpUrl") === null)
        throw new ConfigError("SIGNUP=open needs SMTP_URL: the confirmation code is mailed");
      return mode as "off" | "invite" | "open";
    }),
  },
  signupPlan: {
    variable: "SIGNUP_PLAN",
    meaning: "the plan a new account gets; all its keys draw from one count of it",
    ...defaulting("free", (raw) => raw),
  },
  smtpUrl: {
    variable: "SMTP_URL",
    default: "unset",
    meaning:
      "the mail server that sends confirmation codes, reset codes and invitations (`smtp://user:pass@host:587`, `smtps://…`); needs PUBLIC_URL, so that mailed links are whole; unset, invitations and resets are only printed by the CLI",
    parse: (raw, { variable, value }) => {
      if (raw === null) return null;
      if (!/^smtps?:\/\/[^/]/.test(raw))
        throw new ConfigError(`${variable} must be an smtp:// or smtps:// URL`);
      if (value("publicUrl") === null)
        throw new ConfigError(
          "SMTP_URL needs PUBLIC_URL: mailed invitation and reset links must carry the address people open them at",
        );
      return raw;
    },
  },
  mailFrom: {
    variable: "MAIL_FROM",
    meaning: "the sender of the mails to people (`From:`)",
    ...defaulting("mailrisk@localhost", (raw) => raw),
  },
  sessionTtlSeconds: {
    variable: "SESSION_TTL",
    ...duration("30d"),
    meaning: "a log-in session ends after this long unused (seconds, or `12h`, `30d`)",
  },
  sessionMaxAgeSeconds: {
    variable: "SESSION_MAX_AGE",
    ...duration("30d"),
    meaning:
      "a log-in session ends this long after it began, however often used (seconds, or `12h`, `30d`); beside the idle SESSION_TTL ([security.md](security.md#sessions))",
  },
  require2fa: {
    variable: "REQUIRE_2FA",
    meaning:
      "who must log in with two-factor ([accounts.md](accounts.md#two-factor-log-in)): `off` nobody (anyone may turn it on), `operators` accounts with the `operator` role, `all` every account; a person who must and has not set it up is sent to `/account/security` before any other page",
    ...defaulting("off", (raw, { variable }) => {
      const mode = raw.toLowerCase();
      if (mode !== "off" && mode !== "operators" && mode !== "all")
        throw new ConfigError(`${variable} must be off, operators or all; got "${raw}"`);
      return mode as "off" | "operators" | "all";
    }),
  },
  supportEmail: {
    variable: "SUPPORT_EMAIL",
    default: "unset",
    meaning:
      "the address a person whose account is suspended is told to write to, when they log in with the right password ([accounts.md](accounts.md#roles-and-states)); unset, they are told to contact the operator of the server",
    parse: (raw, { variable }) => {
      if (raw === null) return null;
      if (raw.length > 254 || !/^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>".]+$/.test(raw))
        throw new ConfigError(`${variable} must be an email address; got "${raw}"`);
      return raw;
    },
  },
  accessLog: {
    variable: "ACCESS_LOG",
    meaning:
      "the request log at LOG_LEVEL `info`: `sampled` one line a second at most (saying how many requests it stands for) and one for every 5xx answer; `all` two lines per request (received, completed), which cost about what a cached check does; `off` none (errors are still logged) ([http.md](http.md#the-request-log))",
    ...defaulting("sampled", (choice, { variable }) => {
      if (!(ACCESS_LOG_CHOICES as readonly string[]).includes(choice)) {
        throw new ConfigError(`${variable} must be one of ${ACCESS_LOG_CHOICES.join(", ")}; got "${choice}"`);
      }
      return choice as AccessLogChoice;
    }),
  },
  logLevel: {
    variable: "LOG_LEVEL",
    meaning: `pino's level: ${LOG_LEVELS.map((level) => `\`${level}\``).join(", ")}`,
    ...defaulting("info", (level, { variable }) => {
      if (!(LOG_LEVELS as readonly string[]).includes(level)) {
        throw new ConfigError(`${variable} must be one of ${LOG_LEVELS.join(", ")}; got "${level}"`);
      }
      return level as LogLevel;
    }),
  },
} satisfies { readonly [field: string]: ConfigEntry<unknown> };

/** The parsed configuration: each field is what its entry of CONFIG_TABLE parses. */
export type Config = {
  -readonly [K in keyof typeof CONFIG_TABLE]: ReturnType<(typeof CONFIG_TABLE)[K]["parse"]>;
};
