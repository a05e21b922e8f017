/**
 * Two-factor log-in (docs/accounts.md "Two-factor log-in"): a TOTP secret (RFC 6238, 6
 * digits, 30 s, SHA-1 as every authenticator app takes it) made and held by the server,
 * turned on by its first code, 10 recovery codes each spent once, turning it off with
 * the password and a code, and the operator's reset. At log-in and turning off, a time
 * step, like a recovery code, is taken once: a code taken is never taken again.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { Secret, TOTP } from "otpauth";
import QRCode from "qrcode";
import type { Account, Store } from "../store/index.js";
import { newCode } from "../store/secrets.js";
import { type AccountJson, accountJson, findAccount, twoFactorOn } from "./accounts.js";
import { type Actor, audited } from "./audit.js";
import { passwordTry, trierOf, tryFailed, trySucceeded, type Wait } from "./login-throttle.js";
import { secretDigest } from "./one-time-secrets.js";

const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** Codes of the step before and after the current one are taken too (clocks drift). */
const WINDOW = 1;
/** How long a secret shown at set-up waits for its first code. */
const SET_UP_MS = 15 * 60_000;
export const RECOVERY_CODES = 10;
/** Lower-case letters and digits without 0/1/l/o: 5 bits a character, 16 characters, 80 bits. */
const RECOVERY_ALPHABET = "23456789abcdefghijkmnpqrstuvwxyz";
const RECOVERY_LENGTH = 16;
/** The longest code any form takes; longer is a 400 before anything is looked up. */
export const MAX_CODE_LENGTH = 64;

type TwoFactorStore = Pick<Store, "twoFactor" | "transaction" | "audit" | "accounts" | "loginThrottle">;

/** REQUIRE_2FA: who must have two-factor on. */
export type TwoFactorRule = "off" | "operators" | "all";

export function mustUseTwoFactor(rule: TwoFactorRule, account: Account): boolean {
  return rule === "all" || (rule === "operators" && account.role === "operator");
}

function totpOf(secret: string, email: string): TOTP {
  return new TOTP({
    issuer: "mailrisk",
    label: email,
    algorithm: "SHA1",
    digits: DIGITS,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });
}

/** The time step a 6-digit code belongs to (within WINDOW of now), or undefined when it is none. */
function stepOf(secret: string, email: string, code: string, now: Date): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const totp = totpOf(secret, email);
  const delta = totp.validate({ token: code, timestamp: now.getTime(), window: WINDOW });
  return delta === null ? undefined : totp.counter({ timestamp: now.getTime() }) + delta;
}

/** A code as typed, without spaces and dashes, lower case. */
export function normaliseCode(code: string): string {
  return code.replace(/[\s-]/g, "").toLowerCase();
}

/** A recovery code as stored: the HMAC of the account and the code under the server's key (one-time-secrets.ts). */
function recoveryHash(store: Pick<Store, "accounts">, accountId: string, code: string): Promise<string> {
  return secretDigest(store, `recovery ${accountId} ${code}`);
}

function newRecoveryCode(): string {
  let code = "";
  while (code.length < RECOVERY_LENGTH)
    for (const byte of randomBytes(RECOVERY_LENGTH * 2))
      if (code.length < RECOVERY_LENGTH && byte < 256 - (256 % RECOVERY_ALPHABET.length))
        code += RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length];
  return code.match(/.{4}/g)?.join("-") ?? code;
}

/** A secret waiting for its first code, as the set-up shows it: base32 text and a QR code (SVG). */
export interface SetUp {
  secret: string;
  uri: string;
  qrSvg: string;
}

async function setUpOf(secret: string, account: Account): Promise<SetUp> {
  const uri = totpOf(secret, account.email).toString();
  const qrSvg = await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return { secret, uri, qrSvg };
}

/** A new secret for the account, waiting 15 minutes for its first code; undefined when two-factor is on already. */
export async function beginSetUp(
  store: Pick<Store, "twoFactor">,
  account: Account,
  now: Date,
): Promise<SetUp | undefined> {
  if (await twoFactorOn(store, account)) return undefined;
  const secret = new Secret({ size: 20 }).base32;
  await store.twoFactor.savePending(account.id, secret, new Date(now.getTime() + SET_UP_MS));
  return setUpOf(secret, account);
}

/** The set-up still waiting for its code, to show again beside a wrong one. */
export async function pendingSetUp(
  store: Pick<Store, "twoFactor">,
  account: Account,
  now: Date,
): Promise<SetUp | undefined> {
  const secret = await store.twoFactor.findPending(account.id, now);
  return secret === undefined ? undefined : setUpOf(secret, account);
}

export type TurnOn = { kind: "on"; recoveryCodes: string[] } | { kind: "wrong_code" } | { kind: "no_set_up" };

/** Turns two-factor on with the waiting secret's code; the recovery codes are shown once, then only their HMACs are kept. */
export async function turnOnTwoFactor(
  store: TwoFactorStore,
  account: Account,
  code: string,
  now: Date,
  actor: Actor,
): Promise<TurnOn> {
  const secret = await store.twoFactor.findPending(account.id, now);
  if (secret === undefined) return { kind: "no_set_up" };
  // The set-up's code confirms the app has the secret; it is not a log-in, so it takes no time step.
  if (stepOf(secret, account.email, normaliseCode(code), now) === undefined) return { kind: "wrong_code" };
  const recoveryCodes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  const recoveryHashes = await Promise.all(
    recoveryCodes.map((c) => recoveryHash(store, account.id, normaliseCode(c))),
  );
  const turned = await audited(
    store,
    actor,
    (trx) => trx.twoFactor.turnOn(account.id, { secret, recoveryHashes, now }),
    (on) =>
      on
        ? {
            action: "account.2fa_on",
            entity: { kind: "account", id: account.id },
            detail: { email: account.email },
          }
        : undefined,
  );
  return turned ? { kind: "on", recoveryCodes } : { kind: "no_set_up" };
}

/**
 * Whether `code` is the account's: a TOTP code of a time step not taken before (taken now),
 * or an unspent recovery code (spent now); each in one statement.
 */
export async function takeCode(
  store: Pick<Store, "twoFactor" | "accounts">,
  account: Account,
  code: string,
  now: Date,
): Promise<boolean> {
  const typed = normaliseCode(code);
  const found = await store.twoFactor.findSecret(account.id);
  if (!found) return false;
  if (/^\d+$/.test(typed)) {
    const step = stepOf(found.secret, account.email, typed, now);
    return step !== undefined && (await store.twoFactor.takeStep(account.id, step));
  }
  if (typed.length !== RECOVERY_LENGTH) return false;
  return store.twoFactor.spendRecoveryCode(account.id, await recoveryHash(store, account.id, typed));
}

export type TurnOff = { kind: "off" } | { kind: "wrong_password" } | { kind: "wrong_code" } | Wait;

/** Turns two-factor off with the password and a current code (or a recovery code); both are throttled tries. */
export async function turnOffTwoFactor(
  store: TwoFactorStore,
  account: Account,
  input: { password: string; code: string; network: string; now: Date },
  actor: Actor,
): Promise<TurnOff> {
  const { now } = input;
  const who = trierOf(account.email, input.network);
  const tried = await passwordTry(store, who, { email: account.email, password: input.password, now });
  if (tried.kind === "wait") return tried;
  if (tried.kind === "wrong") return { kind: "wrong_password" };
  if (!(await takeCode(store, account, input.code, now))) {
    await tryFailed(store, who, now);
    return { kind: "wrong_code" };
  }
  await trySucceeded(store, who);
  await audited(
    store,
    actor,
    (trx) => trx.twoFactor.turnOff(account.id),
    (off) =>
      off
        ? {
            action: "account.2fa_off",
            entity: { kind: "account", id: account.id },
            detail: { email: account.email },
          }
        : undefined,
  );
  return { kind: "off" };
}

/** The operator clears an account's two-factor (a person who lost the device and the codes); a no-op records nothing. */
export function resetTwoFactor(
  store: Pick<Store, "twoFactor" | "transaction" | "audit" | "accounts">,
  which: string,
  actor: Actor,
): Promise<AccountJson> {
  const reset = audited(
    store,
    actor,
    async (trx) => {
      const account = await findAccount(trx, which);
      return { account: accountJson(account), cleared: await trx.twoFactor.turnOff(account.id) };
    },
    ({ account: { id, email }, cleared }) =>
      cleared
        ? { action: "account.2fa_reset", entity: { kind: "account", id }, detail: { email } }
        : undefined,
  );
  return reset.then(({ account }) => account);
}

/**
 * A mailed log-in code (8 digits) and its HMAC under the server's key, bound to the
 * pending log-in's token (so a dump of the database does not reverse it).
 */
export async function mailedCode(
  store: Pick<Store, "accounts">,
  token: string,
): Promise<{ code: string; codeHash: string }> {
  const code = newCode();
  return { code, codeHash: await mailedCodeHash(store, token, code) };
}

function mailedCodeHash(store: Pick<Store, "accounts">, token: string, code: string): Promise<string> {
  return secretDigest(store, `login code ${token} ${code}`);
}

/** Whether a typed code is the mailed one, in constant time. */
export async function isMailedCode(
  store: Pick<Store, "accounts">,
  token: string,
  codeHash: string,
  typed: string,
): Promise<boolean> {
  const given = Buffer.from(await mailedCodeHash(store, token, normaliseCode(typed)));
  const expected = Buffer.from(codeHash);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
