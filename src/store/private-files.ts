/**
 * State the service creates is its own: files 0600, directories 0700, whatever the umask
 * (docs/security.md, "State files"). A file that exists keeps the mode its owner gave it.
 */
import { closeSync, mkdirSync, openSync } from "node:fs";

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIRECTORY_MODE = 0o700;

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
