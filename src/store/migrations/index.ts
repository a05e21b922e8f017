/**
 * Every migration, as code, in order of their names. Add a new file and a new entry
 * with the next number; never change one that has shipped.
 */
import type { Migration } from "kysely";
import * as initial from "./0001-initial.js";

export const migrations: Record<string, Migration> = {
  "0001_initial": initial,
};
