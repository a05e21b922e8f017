/**
 * The page limiter (docs/security.md, "The page limiter"): fixed one-minute windows
 * counting page requests per client address, per /24 (IPv4) or /64 (IPv6) prefix, and
 * from everyone together. A request over the address's or the prefix's limit is refused
 * with 429, one over the global budget with 503, each until the window ends.
 *
 * Nothing is evicted within a window, so a limited address or prefix stays limited
 * however many others come; every count starts again at the next window. Memory is
 * bounded without eviction: only requests let through are counted, so each map holds at
 * most `global` entries a window.
 */
import { prefixOf } from "../http/client-networks.js";

export interface PageLimits {
  /** PAGE_RATE_LIMIT: requests per window per client address. */
  perAddress: number;
  /** Requests per window per /24 or /64 prefix. */
  perPrefix: number;
  /** PAGE_GLOBAL_RATE_LIMIT: requests per window from everyone. */
  global: number;
}

/** How many times the address limit a prefix gets (PAGE_RATE_LIMIT × 4 per /24 or /64). */
export const PREFIX_FACTOR = 4;

export const PAGE_WINDOW_MS = 60_000;

/** Why a request was refused, and for how many seconds more. */
export interface PageRefusal {
  over: "address" | "prefix" | "global";
  retryAfterSeconds: number;
}

export class PageLimiter {
  private windowEnds = 0;
  private readonly addresses = new Map<string, number>();
  private readonly prefixes = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly limits: PageLimits,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Counts a request of `address`; undefined when it may go on, else why not. */
  take(address: string): PageRefusal | undefined {
    const now = this.clock();
    if (now >= this.windowEnds) this.startWindow(now);
    const retryAfterSeconds = Math.max(1, Math.ceil((this.windowEnds - now) / 1000));
    const prefix = prefixOf(address);
    const fromAddress = this.addresses.get(address) ?? 0;
    const fromPrefix = this.prefixes.get(prefix) ?? 0;
    if (fromAddress >= this.limits.perAddress) return { over: "address", retryAfterSeconds };
    if (fromPrefix >= this.limits.perPrefix) return { over: "prefix", retryAfterSeconds };
    if (this.total >= this.limits.global) return { over: "global", retryAfterSeconds };
    this.addresses.set(address, fromAddress + 1);
    this.prefixes.set(prefix, fromPrefix + 1);
    this.total++;
    return undefined;
  }

  /** Addresses and prefixes counted in this window (for tests of the bound). */
  get remembered(): number {
    return this.addresses.size + this.prefixes.size;
  }

  private startWindow(now: number): void {
    this.windowEnds = now - (now % PAGE_WINDOW_MS) + PAGE_WINDOW_MS;
    this.addresses.clear();
    this.prefixes.clear();
    this.total = 0;
  }
}
