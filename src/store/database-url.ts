/** Where the data lives (SPEC §8): DATABASE_URL to a dialect and its target. */
import { resolve } from "node:path";

export type DatabaseLocation =
  /** `path` is absolute, or `:memory:`. */
  { dialect: "sqlite"; path: string } | { dialect: "postgres"; connectionString: string };

export const DEFAULT_SQLITE_PATH = "./data/mailrisk.db";

/**
 * `null` → `./data/mailrisk.db`; `sqlite:PATH` → that file (relative paths resolve
 * against `cwd`); `sqlite::memory:` → a private in-memory database; `postgres://…` or
 * `postgresql://…` → PostgreSQL.
 */
export function parseDatabaseUrl(databaseUrl: string | null, cwd: string): DatabaseLocation {
  if (databaseUrl === null) return { dialect: "sqlite", path: resolve(cwd, DEFAULT_SQLITE_PATH) };
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return { dialect: "postgres", connectionString: databaseUrl };
  if (databaseUrl.startsWith("sqlite:")) {
    const path = databaseUrl.slice("sqlite:".length);
    if (path === ":memory:") return { dialect: "sqlite", path };
    if (path === "")
      throw new Error("DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/mailrisk.db");
    return { dialect: "sqlite", path: resolve(cwd, path) };
  }
  throw new Error("DATABASE_URL must start with postgres://, postgresql:// or sqlite:");
}
