/**
 * The admin scope's request log (docs/security.md, "Admin lock-out"): one line per
 * request, and refused ones (401, 429) in samples, so a flood of guesses cannot flood the
 * log. The first refusal from an address (an IPv6 one by its /64) is logged; the next
 * ones within a minute are only counted, and their count is logged with the first
 * refusal after that minute. The table of addresses is bounded (the oldest goes first).
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from "fastify";
import { subscriberOf } from "../client-networks.js";

interface Sample {
  since: number;
  counted: number;
}

export interface RefusedRequestLogOptions {
  /** Default one minute. */
  windowMs?: number;
  /** Addresses held at most (default 10,000). */
  maxAddresses?: number;
  now?: () => number;
}

export class RefusedRequestLog {
  private readonly windowMs: number;
  private readonly maxAddresses: number;
  private readonly now: () => number;
  private readonly samples = new Map<string, Sample>();

  constructor(
    private readonly log: FastifyBaseLogger,
    options: RefusedRequestLogOptions = {},
  ) {
    this.windowMs = options.windowMs ?? 60_000;
    this.maxAddresses = options.maxAddresses ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** Logs a finished admin request: every one that was not refused, a refused one in samples. */
  record(request: FastifyRequest, reply: FastifyReply): void {
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (reply.statusCode !== 401 && reply.statusCode !== 429) {
      this.log.info(fields, "request completed");
      return;
    }
    const now = this.now();
    const client = subscriberOf(request.ip);
    const sample = this.samples.get(client);
    if (sample !== undefined && now - sample.since < this.windowMs) {
      sample.counted++;
      return;
    }
    this.samples.delete(client);
    if (this.samples.size >= this.maxAddresses) {
      const oldest = this.samples.keys().next().value;
      if (oldest !== undefined) this.samples.delete(oldest);
    }
    this.samples.set(client, { since: now, counted: 0 });
    const before = sample?.counted ? { refusedBefore: sample.counted } : {};
    this.log.warn(
      { ...fields, ...before },
      "admin request refused; more refusals from this address within a minute are counted, not logged",
    );
  }
}
