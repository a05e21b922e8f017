/** The store's own failure: the database it cannot reach; callers map it to an exit code or a 503. */

/** What a driver's error says, in one line: its message, else its code (an AggregateError's first message). */
export function driverMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message !== "") return error.message;
  const inner = (error as { errors?: unknown[] }).errors?.[0];
  if (inner instanceof Error && inner.message !== "") return inner.message;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : error.name;
}

/**
 * The database could not be reached or could not serve the request right now (connection
 * refused or lost, host unknown, authentication refused, pool exhausted, SQLite file
 * locked, read-only or unopenable). Raised in one place, `translateStoreErrors` in
 * unavailable.ts; `cause` is the driver's error (pino's logs print its message after
 * this one's), `detail` the message with the cause, for a person (never the DATABASE_URL,
 * which may hold a password). HTTP answers it with 503 `database_unavailable`.
 */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
  constructor(cause: unknown) {
    super("the database is unavailable", { cause });
  }

  /** `the database is unavailable: connect ECONNREFUSED 127.0.0.1:5432`. */
  get detail(): string {
    return `${this.message}: ${driverMessage(this.cause)}`;
  }
}
