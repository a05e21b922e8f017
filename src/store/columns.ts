/**
 * How the tables store time: epoch milliseconds in 64-bit integer columns, which compare
 * correctly in both dialects; node-postgres returns int8 as a string, so every read goes
 * through `toMillis`. And how a searched text is matched as itself.
 */
import type { ColumnType } from "kysely";

export type Millis = ColumnType<number | string, number, number>;
export type NullableMillis = ColumnType<number | string | null, number | null, number | null>;

/** `%`, `_` and `\` of a searched text, matched as themselves by `like … escape '\'`. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export function toMillis(value: number | string): number {
  return typeof value === "number" ? value : Number(value);
}

export function toDate(value: number | string): Date {
  return new Date(toMillis(value));
}
