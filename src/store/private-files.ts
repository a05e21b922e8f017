/**
 * Creates the store's state files with the private modes of src/core/file-modes.ts. A file
 * that exists keeps the mode its owner gave it.
 */
import { closeSync, mkdirSync, openSync } from "node:fs";
import { PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE } from "../core/file-modes.js";

/**
 * Creates `path` empty with mode 0600 unless something exists there. Nothing is thrown:
 * when the path cannot be created (a directory, a missing parent, no permission), the
 * caller's own open of it fails and says why (SQLite: SQLITE_CANTOPEN).
 */
export function ensurePrivateFile(path: string): void {
  try {
    closeSync(openSync(path, "wx", PRIVATE_FILE_MODE));
  } catch {
    // Exists already, or cannot be made: left to the caller's open.
  }
}

/** Creates `path` and its missing parents with mode 0700 (an existing one is left alone). */
export function ensurePrivateDirectory(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
}
