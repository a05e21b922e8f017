/**
 * Two-factor secrets, recovery codes and pending log-ins: the repository's contract and rows, implemented in
 * src/store/two-factor-repository.ts.
 */

/** A log-in waiting for its code (docs/accounts.md "Two-factor log-in"). */
export interface PendingLogin {
  hash: string;
  accountId: string;
  via: "totp" | "mail";
  codeHash: string | null;
  expiresAt: Date;
}

/** The accounts' TOTP secrets, recovery codes and pending log-ins. */
export interface TwoFactorRepository {
  /** The account's secret (base32) when two-factor is on, and the last time step taken. */
  findSecret(accountId: string): Promise<{ secret: string; lastStep: number | null } | undefined>;
  /** Keeps a new secret waiting for its first code until `expiresAt` (replacing a waiting one). */
  savePending(accountId: string, secret: string, expiresAt: Date): Promise<void>;
  /** The waiting secret while live. */
  findPending(accountId: string, now: Date): Promise<string | undefined>;
  /**
   * Turns two-factor on with the waiting secret `secret` (still waiting and live) and these
   * recovery code hashes; false when it was not waiting.
   */
  turnOn(accountId: string, input: { secret: string; recoveryHashes: string[]; now: Date }): Promise<boolean>;
  /** Turns it off: secret, waiting secret and recovery codes gone; false when it was off. */
  turnOff(accountId: string): Promise<boolean>;
  /** Takes time step `step` of the account's secret, in one statement: false when it or a later one was taken. */
  takeStep(accountId: string, step: number): Promise<boolean>;
  /** Spends a recovery code in one statement: false when it is unknown or spent. */
  spendRecoveryCode(accountId: string, hash: string): Promise<boolean>;
  savePendingLogin(login: PendingLogin & { triesLeft: number }): Promise<void>;
  /** The live pending log-in of a hash. */
  findPendingLogin(hash: string, now: Date): Promise<PendingLogin | undefined>;
  /** Spends one try of a pending log-in in one statement; false when none was left (it is gone then). */
  spendLoginTry(hash: string, now: Date): Promise<boolean>;
  /** Ends a pending log-in in one statement; false when it was gone already. */
  endPendingLogin(hash: string): Promise<boolean>;
}
