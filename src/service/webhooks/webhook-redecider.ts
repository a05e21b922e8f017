/**
 * Finds the flips a change of policy causes without a check of the domain (an override,
 * a synced list, learned infrastructure; docs/webhooks.md): when the version of what
 * decides verdicts moves, the watched domains are decided again from their stored facts
 * in batches, off the request path, by one instance at a time (a lock in the database).
 * A flip is recorded with its webhook events by the checker (`redecide`), so a flip that
 * an answer, a re-check or another instance records first raises nothing here.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { DAY_MS } from "../../core/time.js";
import type {
  LocksRepository,
  RecordsRepository,
  WatchedFacts,
  WebhooksRepository,
} from "../../store/index.js";
import { PeriodicTask } from "../shared/periodic-task.js";

const LOCK = "webhooks.redecide";
/** How long the lock holds without renewal; renewed after every batch. */
const LOCK_MS = 120_000;
/**
 * After each batch the walk rests this many times as long as the batch took, so it takes
 * at most a fifth of the process's time from requests (100,000 domains: about 15 s).
 */
const REST_RATIO = 4;

export interface RedecideTarget {
  sourcesVersion(): number;
  redecide(watched: WatchedFacts, now: Date): Promise<boolean>;
}

export interface RedecidePass {
  domains: number;
  flips: number;
  ms: number;
}

export interface WebhookRedeciderOptions {
  store: {
    records: Pick<RecordsRepository, "watchedFacts">;
    locks: LocksRepository;
    webhooks: Pick<WebhooksRepository, "listWebhooks">;
  };
  target: RedecideTarget;
  /** WEBHOOK_WATCH_DAYS. */
  watchDays: number;
  holder: string;
  clock?: () => Date;
  /** How often the version is compared; default 1000 ms. */
  pollMs?: number;
  /** Domains a batch reads and decides; default 1000. */
  batchSize?: number;
  /** The rest after a batch, as a multiple of its time; default 4 (tests: 0). */
  restRatio?: number;
  onPass?: (pass: RedecidePass) => void;
  onError?: (error: unknown) => void;
}

export class WebhookRedecider {
  /** The version the last complete pass decided with; undefined before the first. */
  private decidedVersion: number | undefined;
  private readonly running: PeriodicTask;
  private readonly clock: () => Date;

  constructor(private readonly options: WebhookRedeciderOptions) {
    this.clock = options.clock ?? (() => new Date());
    this.running = new PeriodicTask({
      run: () => this.runIfMoved(),
      everyMs: options.pollMs ?? 1000,
      onError: options.onError,
    });
  }

  start(): void {
    this.running.start();
  }

  private async runIfMoved(): Promise<void> {
    const version = this.options.target.sourcesVersion();
    if (version === this.decidedVersion) return;
    // With no webhook there is nothing to raise: answers record their flips as they come.
    if ((await this.options.store.webhooks.listWebhooks()).length === 0) {
      this.decidedVersion = version;
      return;
    }
    const pass = await this.pass();
    if (pass) {
      this.decidedVersion = version;
      this.options.onPass?.(pass);
    }
  }

  /** One walk over the watched domains under the lock; null when another instance holds it (the next poll tries again). */
  async pass(): Promise<RedecidePass | null> {
    const { store, target, holder } = this.options;
    const batchSize = this.options.batchSize ?? 1000;
    const lockFor = () => new Date(this.clock().getTime() + LOCK_MS);
    if (!(await store.locks.tryLock(LOCK, holder, this.clock(), lockFor()))) return null;
    const started = performance.now();
    let domains = 0;
    let flips = 0;
    try {
      const since = new Date(this.clock().getTime() - this.options.watchDays * DAY_MS);
      let after: string | null = null;
      for (;;) {
        const batchStarted = performance.now();
        const batch = await store.records.watchedFacts(since, after, batchSize);
        const now = this.clock();
        for (const watched of batch) if (await target.redecide(watched, now)) flips++;
        domains += batch.length;
        if (batch.length < batchSize) break;
        after = batch[batch.length - 1]?.domain ?? null;
        await store.locks.tryLock(LOCK, holder, this.clock(), lockFor());
        const rest = (performance.now() - batchStarted) * (this.options.restRatio ?? REST_RATIO);
        await sleep(Math.max(1, rest));
      }
    } finally {
      await store.locks.unlock(LOCK, holder);
    }
    return { domains, flips, ms: performance.now() - started };
  }

  stop(): Promise<void> {
    return this.running.stop();
  }
}
