/**
 * State the service creates is its own: files 0600, directories 0700, whatever the umask
 * (docs/security.md, "State files"); the store's database files and the CLI's state files alike.
 */

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIRECTORY_MODE = 0o700;
