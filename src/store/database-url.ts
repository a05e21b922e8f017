/** Where the data lives (docs/api.md "Storage and caching"): DATABASE_URL to a dialect and its target. */
import { join, resolve } from "node:path";

export type DatabaseLocation =
  | {
      dialect: "sqlite";
      /** Absolute, or `:memory:`. */
      path: string;
      /** Create the file's directory when missing: only the default file in STATE_DIR. */
      createDirectory?: boolean;
    }
  | { dialect: "postgres"; connectionString: string };

/** The SQLite file used when DATABASE_URL is unset, inside STATE_DIR. */
export const DEFAULT_SQLITE_FILE = "mailrisk.db";

export class DatabaseUrlError extends Error {
  override name = "DatabaseUrlError";
}

/**
 * `null` → `<stateDir>/mailrisk.db` (its directory created on open); `sqlite:PATH` →
 * that file (relative paths resolve against `cwd`; its directory must exist);
 * `sqlite::memory:` → a private in-memory database; `postgres://…` or `postgresql://…`
 * → PostgreSQL. Throws DatabaseUrlError on anything else. Pure: touches no file.
 */
export function parseDatabaseUrl(
  databaseUrl: string | null,
  dirs: { cwd: string; stateDir: string },
): DatabaseLocation {
  if (databaseUrl === null) {
    return {
      dialect: "sqlite",
      path: resolve(dirs.cwd, join(dirs.stateDir, DEFAULT_SQLITE_FILE)),
      createDirectory: true,
    };
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    // Not echoed either: it may hold a password.
    if (!URL.canParse(databaseUrl)) {
      throw new DatabaseUrlError(
        "DATABASE_URL is not a valid URL; write postgres://user:password@host:5432/name (a character such as @ : / # ? in the password percent-encoded)",
      );
    }
    return { dialect: "postgres", connectionString: databaseUrl };
  }
  if (databaseUrl.startsWith("sqlite:")) {
    const path = databaseUrl.slice("sqlite:".length);
    if (path === ":memory:") return { dialect: "sqlite", path };
    if (path === "")
      throw new DatabaseUrlError("DATABASE_URL sqlite: needs a file path, e.g. sqlite:./var/mailrisk.db");
    return { dialect: "sqlite", path: resolve(dirs.cwd, path) };
  }
  // The value is not echoed: a mistyped PostgreSQL URL may hold a password.
  throw new DatabaseUrlError("DATABASE_URL must start with postgres://, postgresql:// or sqlite:");
}

/**
 * The database for a person (the CLI names it, the server logs it): `SQLite <path>`, or
 * `PostgreSQL postgres://user@host:port/name` without its password or parameters.
 */
export function describeDatabase(location: DatabaseLocation): string {
  if (location.dialect === "sqlite") {
    return location.path === ":memory:" ? "SQLite in memory (sqlite::memory:)" : `SQLite ${location.path}`;
  }
  try {
    const url = new URL(location.connectionString);
    const user = url.username === "" ? "" : `${url.username}@`;
    return `PostgreSQL ${url.protocol}//${user}${url.host}${url.pathname}`;
  } catch {
    return "PostgreSQL (DATABASE_URL)";
  }
}
