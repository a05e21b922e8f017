/**
 * The look-up budgets: one for the pages, one for the API and one for list jobs, so
 * anonymous page visitors never hold the look-ups keyed callers wait for, and a
 * million-row job takes at most a quarter of the API's size (JOBS_SHARE). Each is a `FairLimiter`: a client (a
 * page visitor's address, an API key) holds at most half of its budget, and freed slots
 * go round-robin to the clients waiting (docs/security.md, "Fair look-ups"). Work the
 * process does for itself (the CLI) runs in the API budget, capped by the budget alone.
 *
 * Background refreshes run in the budget of the request that found the record stale and
 * only ever hold half of it: when that many are already waiting or running,
 * `tryInBackground` declines (the stale record is served, a later request refreshes
 * it), so a caller's look-up never waits behind more than half a budget of refreshes,
 * and a day's worth of expired records cannot start tens of thousands of look-ups at once.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Lane, LaneBudget } from "./checker.js";
import { FairLimiter } from "./fair-limiter.js";

export const DEFAULT_LOOKUP_CONCURRENCY = 64;

/** The list jobs' budget as a share of the API's. */
const JOBS_SHARE = 0.25;

/** The share of a budget one client may hold. */
const CLIENT_SHARE = 0.5;

class Budget {
  readonly limiter: FairLimiter;
  readonly maxRefreshes: number;
  refreshes = 0;

  constructor(concurrency: number) {
    this.limiter = new FairLimiter(concurrency, Math.max(1, Math.floor(concurrency * CLIENT_SHARE)));
    this.maxRefreshes = Math.max(1, Math.floor(concurrency / 2));
  }
}

/** Requests that the jobs' look-ups give way to (src/service/jobs/requests-in-progress.ts). */
export interface GivesWayTo {
  busy(): boolean;
  whenIdle(maxMs: number): Promise<void>;
}

/** The longest a job's look-up waits at once for the requests in progress. */
const GIVE_WAY_MS = 20;
/** The jobs' look-up answers taken up (decided, saved) in one turn of the event loop at most. */
const JOB_ANSWERS_PER_TURN = 2;

export interface LookupBudgetSizes {
  /** Look-ups at a time for API callers and the process's own work; default 64. */
  api?: number | undefined;
  /** PAGE_LOOKUP_CONCURRENCY: look-ups at a time for page visitors. */
  pages: number;
  /** The API's requests in progress: while any is, a job's look-up that got its slot waits before it starts. */
  jobsGiveWayTo?: GivesWayTo | undefined;
}

export class LookupBudget {
  private readonly budgets: Record<LaneBudget, Budget>;

  private readonly givesWayTo: GivesWayTo | undefined;
  /** The jobs' answers taken up in this turn, and the next turn, shared by those waiting for it. */
  private jobAnswers = 0;
  private nextTurn: Promise<void> | undefined;

  constructor(sizes: LookupBudgetSizes) {
    this.givesWayTo = sizes.jobsGiveWayTo;
    this.budgets = {
      api: new Budget(sizes.api ?? DEFAULT_LOOKUP_CONCURRENCY),
      pages: new Budget(sizes.pages),
      jobs: new Budget(Math.max(1, Math.floor((sizes.api ?? DEFAULT_LOOKUP_CONCURRENCY) * JOBS_SHARE))),
    };
  }

  /** Runs a look-up within the lane's budget and its client's share (no lane: the process's own work). */
  run<T>(lookUp: () => Promise<T>, lane?: Lane): Promise<T> {
    const requests = this.givesWayTo;
    if (lane?.budget === "jobs" && requests) {
      // Fewer of the jobs' look-ups at once while the API answers: those given a slot wait for it first.
      const givingWay = async () => {
        while (requests.busy()) await requests.whenIdle(GIVE_WAY_MS);
        return lookUp();
      };
      return this.budgets.jobs.limiter.run(givingWay, lane.client).then(async (answer) => {
        await this.jobAnswerTurn();
        return answer;
      });
    }
    return this.budgets[lane?.budget ?? "api"].limiter.run(lookUp, lane?.client);
  }

  /**
   * A turn of the event loop for a job's answer: at most JOB_ANSWERS_PER_TURN of them
   * are taken up between two turns, so the answers that arrive together (16 look-ups in
   * flight) are decided and saved a few at a time, with the server's requests read between.
   */
  private async jobAnswerTurn(): Promise<void> {
    while (this.jobAnswers >= JOB_ANSWERS_PER_TURN) {
      this.nextTurn ??= nextTurn().then(() => {
        this.nextTurn = undefined;
        this.jobAnswers = 0;
      });
      await this.nextTurn;
    }
    this.jobAnswers++;
  }

  /** Starts a background refresh unless the lane's refresh share is taken; its promise, or undefined when declined. */
  tryInBackground<T>(refresh: () => Promise<T>, lane?: Lane): Promise<T> | undefined {
    const budget = this.budgets[lane?.budget ?? "api"];
    if (budget.refreshes >= budget.maxRefreshes) return undefined;
    budget.refreshes++;
    return refresh().finally(() => {
      budget.refreshes--;
    });
  }

  /** Background refreshes waiting or running, in every budget. */
  get refreshes(): number {
    return this.sum((budget) => budget.refreshes);
  }

  get running(): number {
    return this.sum((budget) => budget.limiter.running);
  }

  get waiting(): number {
    return this.sum((budget) => budget.limiter.waiting);
  }

  private sum(count: (budget: Budget) => number): number {
    return Object.values(this.budgets).reduce((total, budget) => total + count(budget), 0);
  }
}
