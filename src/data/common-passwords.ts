/**
 * The bundled list of common passwords (data/common-passwords.txt, made by
 * scripts/build-common-passwords.ts), read once when first asked.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DATA_DIR } from "./read-domain-lists.js";

let passwords: ReadonlySet<string> | undefined;

/** Whether a password (compared in lower case) is on the bundled list. */
export function isCommonPassword(password: string): boolean {
  passwords ??= new Set(
    readFileSync(join(DATA_DIR, "common-passwords.txt"), "utf8")
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith("#")),
  );
  return passwords.has(password.toLowerCase());
}
