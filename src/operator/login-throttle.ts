/**
 * The log-in throttle (docs/security.md "Log-in throttling"): failures are counted per
 * account *and* client network, so a stranger's guesses lock only the stranger's network
 * out of the account; per network across accounts, slowing (never locking) a network
 * that guesses many; and per account across networks, which adds a mailed code to the
 * account's next log-in. An unknown email is counted as a known one, so the answers
 * tell nothing.
 */
import { hash } from "node:crypto";
import { checkPassword } from "../service/accounts/account-access.js";
import type {
  AccountLogin,
  AccountsRepository,
  LoginThrottleRepository,
  ThrottleRule,
} from "../store/index.js";

const MINUTE_MS = 60_000;

/** One account from one network: the 10th failure in an hour locks it out for 15 minutes; then it starts again at zero. */
export const ACCOUNT_NETWORK_RULE: ThrottleRule = {
  windowMs: 60 * MINUTE_MS,
  lockAt: 10,
  stepMs: 15 * MINUTE_MS,
  maxLockMs: 15 * MINUTE_MS,
  restartAfterLock: true,
};

/** One network, every account: 20 tries in 15 minutes, then a wait of 5 s more for each, at most 60 s. */
export const NETWORK_RULE: ThrottleRule = {
  windowMs: 15 * MINUTE_MS,
  lockAt: 20,
  stepMs: 5_000,
  maxLockMs: MINUTE_MS,
  restartAfterLock: false,
};

/** One account, every network: failures counted in an hour, never a wait. */
const ACCOUNT_RULE: ThrottleRule = {
  windowMs: 60 * MINUTE_MS,
  lockAt: null,
  stepMs: 0,
  maxLockMs: 0,
  restartAfterLock: false,
};

/** Failures of one account from all networks in an hour over which its next log-in needs a mailed code. */
export const MAIL_CODE_AFTER = 100;

type ThrottleStore = { loginThrottle: LoginThrottleRepository };

/** Who tries: the account named (a hash of the email as typed, lower case) and the client's network. */
export interface Trier {
  account: string;
  network: string;
}

export function trierOf(email: string, network: string): Trier {
  return { account: hash("sha256", email.trim().toLowerCase(), "hex"), network };
}

/** A try may go on, or waits `retryAfterSeconds` (a 429 with Retry-After). */
export type Gate = { kind: "open" } | Wait;
export type Wait = { kind: "wait"; retryAfterSeconds: number };

function waitUntil(until: Date, now: Date): Gate {
  return {
    kind: "wait",
    retryAfterSeconds: Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000)),
  };
}

const pairKey = ({ account, network }: Trier) => `an:${account} ${network}`;
const networkKey = ({ network }: Trier) => `n:${network}`;
const accountKey = ({ account }: Trier) => `a:${account}`;

/**
 * Counts a try (a password or a code) before it is judged: refused while the account is
 * locked for this network (not counted then) or the network must wait.
 */
export async function takeTry(store: ThrottleStore, who: Trier, now: Date): Promise<Gate> {
  const locked = await store.loginThrottle.lockedUntil(pairKey(who), now);
  if (locked) return waitUntil(locked, now);
  const network = await store.loginThrottle.countTry(networkKey(who), NETWORK_RULE, now);
  if (!network.counted) return waitUntil(network.lockedUntil, now);
  const pair = await store.loginThrottle.countTry(pairKey(who), ACCOUNT_NETWORK_RULE, now);
  if (!pair.counted) return waitUntil(pair.lockedUntil, now);
  return { kind: "open" };
}

/**
 * A password try of `who`, counted and judged: the account when the password is right
 * (the caller settles the count: trySucceeded or tryGivenBack), "wrong" (counted as a
 * failure), or the wait.
 */
export async function passwordTry(
  store: ThrottleStore & { accounts: AccountsRepository },
  who: Trier,
  input: { email: string; password: string; now: Date },
): Promise<{ kind: "right"; login: AccountLogin } | { kind: "wrong" } | Wait> {
  const gate = await takeTry(store, who, input.now);
  if (gate.kind === "wait") return gate;
  const login = await checkPassword(store, input.email, input.password);
  if (login) return { kind: "right", login };
  await tryFailed(store, who, input.now);
  return { kind: "wrong" };
}

/** A try judged wrong: it stays counted, and counts for the account across networks too. */
export async function tryFailed(store: ThrottleStore, who: Trier, now: Date): Promise<void> {
  await store.loginThrottle.countTry(accountKey(who), ACCOUNT_RULE, now);
}

/** A try judged right: the account's count from this network is gone, the network's try given back. */
export async function trySucceeded(store: ThrottleStore, who: Trier): Promise<void> {
  await store.loginThrottle.clear(pairKey(who));
  await store.loginThrottle.giveBack(networkKey(who));
}

/** A right password before a second step: its own try given back, the failures before it (wrong codes too) kept. */
export async function tryGivenBack(store: ThrottleStore, who: Trier): Promise<void> {
  await store.loginThrottle.giveBack(pairKey(who));
  await store.loginThrottle.giveBack(networkKey(who));
}

/** Whether so many failed for the account in the last hour that its log-in needs a mailed code. */
export async function needsMailedCode(store: ThrottleStore, who: Trier, now: Date): Promise<boolean> {
  const since = new Date(now.getTime() - ACCOUNT_RULE.windowMs);
  return (await store.loginThrottle.failures(accountKey(who), since)) > MAIL_CODE_AFTER;
}
