/**
 * What a new password must be (docs/security.md "Passwords"): at least MIN_PASSWORD
 * characters, not all one character or whitespace, not on the bundled list of common
 * passwords (data/common-passwords.txt). The refusal says why.
 */
import { isCommonPassword } from "../data/common-passwords.js";

export const MIN_PASSWORD = 10;
/** Longer passwords are refused before any hashing (a 1 MB password costs nothing). */
export const MAX_PASSWORD = 200;

/** What is wrong with a new password, or undefined. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD) return `Use at least ${MIN_PASSWORD} characters.`;
  if (password.length > MAX_PASSWORD) return `Use at most ${MAX_PASSWORD} characters.`;
  if (password.trim() === "") return "Use more than spaces: this password is only whitespace.";
  if (new Set(password).size === 1)
    return "Use more than one character repeated: this password is too easy to guess.";
  if (isCommonPassword(password))
    return "This password is on the list of the most common passwords, which are tried first: choose another.";
  return undefined;
}
