/**
 * How many `POST /v2/bulk` requests are in progress at once, per key and in all, per
 * instance (docs/security.md, "Bounded bulk"). One over a key's limit is refused with
 * 429 `too_many_concurrent_requests`, one over the instance's with 503 `server_busy`,
 * both with Retry-After, before the body is read and before any unit is counted, so a
 * refused request costs no quota and holds no body (the route enters it in `preParsing`).
 */
import type { Config } from "../config.js";
import { HttpProblem } from "./http-problem.js";

/** Seconds a refused bulk request is told to wait. */
export const BULK_RETRY_AFTER_SECONDS = 2;

const RETRY_AFTER = { "retry-after": String(BULK_RETRY_AFTER_SECONDS) };

export class BulkGate {
  private total = 0;
  private readonly ofKey = new Map<string, number>();

  constructor(private readonly limits: Pick<Config, "bulkConcurrentPerKey" | "bulkConcurrentTotal">) {}

  /** Admits one request of the key, or throws its problem; the function that lets it go again (once). */
  enter(keyId: string): () => void {
    const held = this.ofKey.get(keyId) ?? 0;
    if (held >= this.limits.bulkConcurrentPerKey) {
      throw new HttpProblem(
        "too_many_concurrent_requests",
        `This key has ${held} bulk requests in progress, the most it may have at once; send the next when one is answered.`,
        RETRY_AFTER,
      );
    }
    if (this.total >= this.limits.bulkConcurrentTotal) {
      throw new HttpProblem(
        "server_busy",
        "This server is answering as many bulk requests as it takes at once; retry shortly.",
        RETRY_AFTER,
      );
    }
    this.total++;
    this.ofKey.set(keyId, held + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.total--;
      const still = (this.ofKey.get(keyId) ?? 1) - 1;
      if (still === 0) this.ofKey.delete(keyId);
      else this.ofKey.set(keyId, still);
    };
  }

  /** Bulk requests in progress (tests). */
  get inProgress(): number {
    return this.total;
  }
}
