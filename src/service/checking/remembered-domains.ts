/**
 * The record cache's memory layer: each domain's stored facts, read from or saved to the
 * store, are answered from memory for REMEMBER_SECONDS to spare the database a read per
 * request, with the answer last decided from them. Another instance's newer look-up is
 * seen at most that much later; a purge (the change signal's `records`) forgets all.
 */
import { LRUCache } from "lru-cache";
import type { DomainCheck } from "../../core/check.js";
import type { StoredFacts } from "../../store/index.js";

export const REMEMBER_SECONDS = 30;

/** A domain as this process knows it. */
export interface KnownDomain extends StoredFacts {
  domain: string;
  /** Until when (ms) it is answered without reading the store again. */
  until: number;
  /** The answer last decided from the facts, and the version of the sources it was decided with. */
  decided?: { version: number; check: DomainCheck };
}

export class RememberedDomains {
  private readonly entries = new LRUCache<string, KnownDomain>({ max: 10_000 });

  /** The domain as remembered, unless REMEMBER_SECONDS have passed at `now`. */
  get(domain: string, now: Date): KnownDomain | undefined {
    const entry = this.entries.get(domain);
    if (entry === undefined || entry.until > now.getTime()) return entry;
    this.entries.delete(domain);
    return undefined;
  }

  remember(domain: string, stored: StoredFacts, now: Date): KnownDomain {
    const entry: KnownDomain = { ...stored, domain, until: now.getTime() + REMEMBER_SECONDS * 1000 };
    this.entries.set(domain, entry);
    return entry;
  }

  forgetAll(): void {
    this.entries.clear();
  }
}
