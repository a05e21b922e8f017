/**
 * What the API, the pages and the CLI call: a check of a parsed input that goes
 * through the record cache (fresh facts → answered, stale → answered while one refresh
 * runs, missing → one shared look-up for concurrent callers).
 */
import type { EvidenceItem } from "../../core/evidence.js";
import type { ParsedInput } from "../../core/input.js";
import type { CheckRecord } from "../../core/record.js";
import type { VerdictStatus } from "../../core/verdict.js";
import type { ResolverHealth } from "./resolver-health.js";

export type CacheOutcome = "hit" | "stale" | "miss";

/** Which look-up budget a check draws on: the pages', the API's or the list jobs' (src/service/checking/lookup-budget.ts). */
export type LaneBudget = "pages" | "api" | "jobs";

/** Who asks for a check: the budget it draws on and the client whose share it takes (a page visitor's address, an API key's id). */
export interface Lane {
  budget: LaneBudget;
  client: string;
  /** The account of the asking key, whose own list its answers follow (docs/accounts.md "The account's list"). */
  account?: string | undefined;
}

export interface CheckResult {
  record: CheckRecord;
  /** The verdict's row (docs/api.md "Verdicts"), for cache lifetimes and metrics. */
  status: VerdictStatus;
  cache: CacheOutcome;
  /** The evidence behind the answer (docs/api.md "Evidence (`explain=true`)"), made when first asked; absent in test fakes. */
  explain?: () => readonly EvidenceItem[];
}

/** How full the checker's bounded queues are now; the operator's view of the bounds (/metrics). */
export interface CheckerLoad {
  /** Look-ups holding a slot of the look-up budget (callers' and refreshes together). */
  lookupsRunning: number;
  /** Look-ups waiting for a slot. */
  lookupsWaiting: number;
  /** Background refreshes waiting or running (at most half the budget). */
  refreshes: number;
  /** DNS queries on the wire, and waiting for one of the resolver's slots. */
  dnsInFlight: number;
  dnsWaiting: number;
  /** Observations (recent domains, evidence) dropped since start because too many waited. */
  observationsDropped: number;
}

/** What decides verdicts and can change while serving: the operator's overrides, the lists in force, the accounts' own lists. */
export type SourcesKind = "overrides" | "lists" | "account_lists";

/** A check answered from memory (`Checker.answerFromMemory`). */
export interface MemoryAnswer {
  result: CheckResult;
  /** What `check` does once its answer is given (the recent domains, the evidence); call it when the answer is sent. */
  answered(): void;
}

export interface Checker {
  /** Without a lane: the process's own work (the CLI), in the API budget, capped by the budget alone. */
  check(input: ParsedInput, lane?: Lane): Promise<CheckResult>;
  /**
   * The answer `check` would give now when it needs no waiting: the domain's facts held
   * here and fresh ("hit"), no block-status flip to record, the account's list held; else
   * undefined (nothing done). Absent in test fakes.
   */
  answerFromMemory?(input: ParsedInput, lane: Lane): MemoryAnswer | undefined;
  /** How full the bounded queues are; absent in test fakes. */
  load?(): CheckerLoad;
  /** Waits for background refreshes to finish (graceful shutdown, tests). */
  drain(): Promise<void>;
  /** Whether the DNS resolver tells the truth (readiness, metrics); absent in test fakes. */
  readonly resolverHealth?: ResolverHealth;
  /** Drops every domain's facts this process remembers: records were purged (the change signal). */
  forgetRemembered?(): void;
  /**
   * Reloads what decides verdicts now, the overrides or the lists in force: they changed
   * (the change signal). Never rejects (a failed load is reported and retried).
   */
  reloadSources?(which: SourcesKind): Promise<void>;
}
