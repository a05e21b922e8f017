/**
 * Counts a client's events in fixed windows and locks a client that reaches the limit
 * (docs/security.md): the publishable keys' per-visitor limit (a visitor is a key and a
 * client address; locked until its window ends) and the admin API's lock-out (wrong
 * tokens per address; locked for a minute). Per process.
 *
 * A window starts with the client's first event. The event that reaches the limit is
 * let through; the client's next one finds the lock. Memory is bounded, and a locked
 * client is never forgotten before its lock ends, so a crowd of new addresses cannot
 * lift it:
 * - clients under the limit live in an LRU of `maxClients` (the least recently counted is
 *   forgotten first: at worst it starts a fresh window);
 * - locked clients move to a map of their own, of at most `maxClients`, emptied of
 *   ended locks once a window. When it is full, a client that cannot be counted is
 *   refused at once (fail closed), until locks end.
 */
import { LRUCache } from "lru-cache";

export interface WindowLimiterOptions {
  /** Events within a window that lock the client. */
  limit: number;
  /** Default one minute. */
  windowMs?: number;
  /** How long a client that reached the limit is locked; default: until its window ends. */
  lockMs?: number;
  /** Clients counted, and clients locked, at most each (default 10,000). */
  maxClients?: number;
  /** Milliseconds now (the app's clock; tests move it). */
  now?: () => number;
}

interface Window {
  count: number;
  endsAt: number;
}

function secondsUntil(until: number, now: number): number {
  return Math.max(1, Math.ceil((until - now) / 1000));
}

export class WindowLimiter {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly lockMs: number | undefined;
  private readonly maxClients: number;
  private readonly now: () => number;
  /** Made at the first count: an LRU sets aside room for all its entries at once (megabytes for 100,000). */
  private countingLru: LRUCache<string, Window> | undefined;
  /** Locked clients and when their lock ends. */
  private readonly locked = new Map<string, number>();
  private sweepAt = 0;

  constructor(options: WindowLimiterOptions) {
    this.limit = options.limit;
    this.windowMs = options.windowMs ?? 60_000;
    this.lockMs = options.lockMs;
    this.maxClients = options.maxClients ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  private get counting(): LRUCache<string, Window> {
    this.countingLru ??= new LRUCache({ max: this.maxClients });
    return this.countingLru;
  }

  /** Seconds the client stays locked (rounded up), or 0 when it may go on. Counts nothing. */
  lockedSeconds(client: string): number {
    const now = this.now();
    this.sweep(now);
    const until = this.locked.get(client);
    if (until === undefined) return 0;
    if (until > now) return secondsUntil(until, now);
    this.locked.delete(client);
    return 0;
  }

  /** Counts one event of the client: 0, or the seconds it is refused for when it cannot be counted (fail closed). */
  count(client: string): number {
    const now = this.now();
    let window = this.counting.get(client);
    if (window === undefined || window.endsAt <= now) {
      window = { count: 0, endsAt: now + this.windowMs };
      this.counting.set(client, window);
    }
    window.count++;
    if (window.count < this.limit) return 0;
    const until = this.lockMs === undefined ? window.endsAt : now + this.lockMs;
    // No room to lock it: it stays counted at the limit, and each event of it is refused.
    if (this.locked.size >= this.maxClients && !this.locked.has(client)) return secondsUntil(until, now);
    this.counting.delete(client);
    this.locked.set(client, until);
    return 0;
  }

  /** Clients held now, counted and locked (a bound the tests check). */
  get size(): number {
    return (this.countingLru?.size ?? 0) + this.locked.size;
  }

  /** Drops the ended locks, at most once a window. */
  private sweep(now: number): void {
    if (now < this.sweepAt) return;
    this.sweepAt = now + this.windowMs;
    for (const [client, until] of this.locked) if (until <= now) this.locked.delete(client);
  }
}
