/** API key secrets (docs/api.md "Keys, plans, quotas"): random, prefixed, shown once; only their sha-256 is stored. */
import { randomBytes } from "node:crypto";
import { PUBLISHABLE_PREFIX, SECRET_KEY_PREFIX } from "../core/key-formats.js";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Lower-case letters and digits without 0/1/l/o, 32 symbols: 5 bits per character. */
const ID_ALPHABET = "23456789abcdefghijkmnpqrstuvwxyz";

/** 32 base62 characters ≈ 190 bits of randomness. */
const SECRET_LENGTH = 32;
const ID_LENGTH = 10;
const PREFIX_LENGTH = 8;

/** Uniformly random characters: bytes ≥ the largest multiple of the alphabet size are skipped. */
function randomString(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

/**
 * A new secret: `mr_` (secret key) or `mrp_` (publishable key) and 32 base62 characters
 * (letters and digits, easy to select and copy).
 */
export function newSecret(publishable = false): string {
  return `${publishable ? PUBLISHABLE_PREFIX : SECRET_KEY_PREFIX}${randomString(BASE62, SECRET_LENGTH)}`;
}

/** The part of a secret that may be shown and logged, e.g. `mr_3kP9q`. */
export function secretPrefix(secret: string): string {
  return secret.slice(0, PREFIX_LENGTH);
}

/** A key's public id, e.g. `key_7fk2mq9xa3`. */
export function newKeyId(): string {
  return `key_${randomString(ID_ALPHABET, ID_LENGTH)}`;
}

/** A report's public id, e.g. `rpt_7fk2mq9xa3bc`. */
export function newReportId(): string {
  return `rpt_${randomString(ID_ALPHABET, 12)}`;
}

/** An account's public id, e.g. `acc_7fk2mq9xa3`. */
export function newAccountId(): string {
  return `acc_${randomString(ID_ALPHABET, ID_LENGTH)}`;
}

/** A session's or one-time link's token: 32 base62 characters. */
export function newToken(): string {
  return randomString(BASE62, SECRET_LENGTH);
}

/** A mailed code: 8 decimal digits. */
export function newCode(): string {
  return randomString("0123456789", 8);
}
