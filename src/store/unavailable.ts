/**
 * The one place where driver errors become `StoreUnavailableError`: every repository
 * method, `migrate` and `ping` of the store returned by `openStore` are wrapped here
 * (kysely-store.ts), and so is opening the database (index.ts). Wrapping the
 * repository calls rather than Kysely's driver keeps Kysely's own connection handling
 * untouched; every query of the store is made by exactly one such call. Errors that
 * are not about reaching the database (a unique key, an unknown plan, a bug) pass
 * through unchanged, so callers can tell "retry later" from "our fault".
 */
import { StoreUnavailableError } from "./errors.js";

/** Node's socket errors: the server is not there, or the connection to it broke. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** SQLite result codes (and their extended forms) that say the file cannot be used right now. */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|READONLY|CANTOPEN|IOERR|FULL|PROTOCOL)(_|$)/;

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception), class 28 (the role or its
 * password refused), 3D000 (no such database), 53300 too many connections, 57P01–57P03
 * (server shutting down, crashed, starting up).
 */
const POSTGRES_UNAVAILABLE = /^(08...|28...|3D000|53300|57P0[123])$/;

/** node-postgres and pg-pool raise these without a code. */
const POSTGRES_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof StoreUnavailableError) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (NETWORK_CODES.has(code) || SQLITE_UNAVAILABLE.test(code) || POSTGRES_UNAVAILABLE.test(code)) {
      return true;
    }
  }
  return POSTGRES_MESSAGES.test(error.message);
}

/** The error to raise for what a driver threw: `StoreUnavailableError` or the error itself. */
export function toStoreError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || !isUnavailable(error)) return error;
  return new StoreUnavailableError(error);
}

function rejectAsStoreError(error: unknown): never {
  throw toStoreError(error);
}

/**
 * The same object with every method's failures passed through `toStoreError`. A method
 * runs on every API request (`usage.authorize`), so the wrapper adds a rejection handler
 * to the method's promise rather than another async function to wait through. A method
 * that answers at once (`usage.rememberedKey`, which reads only memory) answers at once
 * through the wrapper too, as its type says; a throw is turned into a rejection.
 */
export function translateStoreErrors<T extends object>(target: T): T {
  const translated: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(target)) {
    translated[name] =
      typeof value === "function"
        ? (...args: unknown[]) => {
            try {
              const result: unknown = value.apply(target, args);
              return result instanceof Promise ? result.then(undefined, rejectAsStoreError) : result;
            } catch (error) {
              return Promise.reject(toStoreError(error));
            }
          }
        : value;
  }
  return translated as T;
}
