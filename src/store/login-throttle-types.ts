/**
 * Failed log-ins counted by key: the repository's contract and rows, implemented in
 * src/store/login-throttle-repository.ts.
 */

/** How a counter of failed log-ins counts (docs/security.md "Log-in throttling"). */
export interface ThrottleRule {
  /** A count older than this starts again at one. */
  windowMs: number;
  /** The try that brings the count to this makes the next ones wait; null: never. */
  lockAt: number | null;
  /** The wait: `stepMs` times the tries at or over `lockAt`, at most `maxLockMs`. */
  stepMs: number;
  maxLockMs: number;
  /** Whether the count starts again at one once a wait is over (else it goes on growing). */
  restartAfterLock: boolean;
}

/** A try counted, or refused because its key waits until `lockedUntil`. */
export type ThrottleTry = { counted: true; failures: number } | { counted: false; lockedUntil: Date };

/** Failed log-ins by key, each counted in one statement (docs/security.md "Log-in throttling"). */
export interface LoginThrottleRepository {
  /** Counts a try unless the key waits now (then `counted: false`); exact under concurrency. */
  countTry(key: string, rule: ThrottleRule, now: Date): Promise<ThrottleTry>;
  /** Until when the key waits; null when it does not. */
  lockedUntil(key: string, now: Date): Promise<Date | null>;
  /** The count of a key whose window started after `since`; 0 when none. */
  failures(key: string, since: Date): Promise<number>;
  /** Gives one try back (a right password): the count less one, its wait kept. */
  giveBack(key: string): Promise<void>;
  /** Forgets a key's count and wait. */
  clear(key: string): Promise<void>;
}
