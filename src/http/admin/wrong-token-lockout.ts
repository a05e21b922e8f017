/**
 * Admin guesses are slowed (docs/security.md, "Admin lock-out"): after `maxWrong` wrong
 * tokens from one client address within a window, that address is answered 429 for
 * `lockMs`, whatever it sends, the right token included. The table of addresses is
 * bounded: when full, the address seen longest ago that is not locked makes room; a
 * locked address is never forgotten before its lock ends. When every address held is
 * locked, a new address's wrong token is answered 429 at once (fail closed: its guesses
 * cannot be counted), while the right token still passes.
 */

interface AddressState {
  /** When the current window of counting began. */
  since: number;
  wrong: number;
  /** Locked until then (0: not locked). */
  lockedUntil: number;
}

export interface WrongTokenLockoutOptions {
  /** Wrong tokens within `windowMs` that lock the address (default 10). */
  maxWrong?: number;
  /** Default one minute. */
  windowMs?: number;
  /** Default one minute. */
  lockMs?: number;
  /** Addresses held at most (default 10,000). */
  maxAddresses?: number;
  /** Milliseconds now (tests move it). */
  now?: () => number;
}

export class WrongTokenLockout {
  private readonly maxWrong: number;
  private readonly windowMs: number;
  private readonly lockMs: number;
  private readonly maxAddresses: number;
  private readonly now: () => number;
  /** In order of last change, oldest first (a Map keeps insertion order: a change re-inserts). */
  private readonly addresses = new Map<string, AddressState>();

  constructor(options: WrongTokenLockoutOptions = {}) {
    this.maxWrong = options.maxWrong ?? 10;
    this.windowMs = options.windowMs ?? 60_000;
    this.lockMs = options.lockMs ?? 60_000;
    this.maxAddresses = options.maxAddresses ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** Seconds the address stays locked (rounded up), or 0 when it is not locked. */
  lockedSeconds(address: string): number {
    const state = this.addresses.get(address);
    const left = state === undefined ? 0 : state.lockedUntil - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /**
   * Counts a wrong token from the address; the seconds it is now locked for, or 0 when
   * it may guess again (the guess that reaches the limit is answered as before: the
   * next one finds the lock).
   */
  noteWrong(address: string): number {
    const now = this.now();
    const known = this.addresses.get(address);
    const state =
      known !== undefined && now - known.since < this.windowMs && known.lockedUntil <= now
        ? known
        : { since: now, wrong: 0, lockedUntil: 0 };
    if (known === undefined && !this.makeRoom(now)) return Math.ceil(this.lockMs / 1000);
    state.wrong++;
    if (state.wrong >= this.maxWrong) state.lockedUntil = now + this.lockMs;
    this.addresses.delete(address);
    this.addresses.set(address, state);
    return 0;
  }

  /** Addresses held now (a bound the tests check). */
  get size(): number {
    return this.addresses.size;
  }

  /** Room for one more address: the oldest unlocked one goes. False when every one held is locked. */
  private makeRoom(now: number): boolean {
    if (this.addresses.size < this.maxAddresses) return true;
    for (const [address, state] of this.addresses) {
      if (state.lockedUntil <= now) {
        this.addresses.delete(address);
        return true;
      }
    }
    return false;
  }
}
