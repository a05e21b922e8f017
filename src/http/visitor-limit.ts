/**
 * The per-visitor limit of publishable keys (PUBLISHABLE_RATE_LIMIT, docs/security.md):
 * requests per minute per client address per key, in fixed windows of a minute that start
 * with a visitor's first request. Per process: with `serve --workers N` each worker keeps
 * its own counts (docs/api.md §9). Memory stays bounded: visitors under the limit live in
 * an LRU of VISITORS_REMEMBERED entries (the least recent is forgotten first, so at worst
 * it starts a fresh window); a visitor over the limit moves to a map of its own until its
 * window ends, so no crowd of new addresses can evict it and lift its limit. That map
 * holds at most one entry per `limit` requests of the last minute.
 */
import { LRUCache } from "lru-cache";

/** Visitors (address and key) counted per process; an entry is about a hundred bytes. */
export const VISITORS_REMEMBERED = 100_000;
const WINDOW_MS = 60_000;

export type VisitorVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Window {
  count: number;
  endsAt: number;
}

export interface VisitorLimiter {
  /** Counts one request of `visitor` at `now` (ms) and says whether it is within the limit. */
  hit(visitor: string, now: number): VisitorVerdict;
}

export function createVisitorLimiter(perMinute: number, remembered = VISITORS_REMEMBERED): VisitorLimiter {
  const counting = new LRUCache<string, Window>({ max: remembered });
  const limited = new Map<string, number>();
  let sweepAt = 0;
  /** Drops the limited visitors whose window has ended, at most once a window. */
  const sweep = (now: number) => {
    if (now < sweepAt) return;
    sweepAt = now + WINDOW_MS;
    for (const [visitor, endsAt] of limited) if (endsAt <= now) limited.delete(visitor);
  };
  const refuse = (endsAt: number, now: number): VisitorVerdict => ({
    allowed: false,
    retryAfterSeconds: Math.max(1, Math.ceil((endsAt - now) / 1000)),
  });
  return {
    hit(visitor, now) {
      sweep(now);
      const limitedUntil = limited.get(visitor);
      if (limitedUntil !== undefined) {
        if (limitedUntil > now) return refuse(limitedUntil, now);
        limited.delete(visitor);
      }
      const window = counting.get(visitor);
      if (window === undefined || window.endsAt <= now) {
        counting.set(visitor, { count: 1, endsAt: now + WINDOW_MS });
        return { allowed: true };
      }
      window.count++;
      if (window.count <= perMinute) return { allowed: true };
      counting.delete(visitor);
      limited.set(visitor, window.endsAt);
      return refuse(window.endsAt, now);
    },
  };
}
