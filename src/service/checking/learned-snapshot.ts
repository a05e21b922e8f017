/**
 * What was learnt from traffic, as the check sees it: an in-memory snapshot of the
 * infrastructure that passed the thresholds (src/core/learned.ts) and of the operator's
 * overrides, a small set. It is reloaded from the store at most every `reloadMs`
 * (default 30 s), one load at a time, started by the checks themselves (no timer to
 * stop), and at once when the change signal says the overrides changed: every instance
 * and the CLI learn from the same database. A failed load keeps the previous snapshot.
 *
 * `version` moves whenever a load finds the overrides or the learnt infrastructure
 * changed: the record cache then decides its answers again (verdicts are decided when
 * answering, from stored facts, so nothing needs a purge).
 */
import {
  type DomainOverride,
  type InfrastructureKind,
  isLearnedDisposable,
  LEARNING_THRESHOLDS,
  type LearnedInfrastructure,
  type LearningThresholds,
  type OverrideAction,
  type OverrideKind,
  type OverrideNote,
} from "../../core/learned.js";
import type { InfrastructureSummary, Store } from "../../store/index.js";
import { OneAtATime } from "../shared/one-at-a-time.js";

export interface LearnedSnapshotOptions {
  store: Pick<Store, "infrastructure" | "overrides">;
  clock: () => Date;
  /** How old the snapshot may grow before a check starts a reload; default 30 s. */
  reloadMs?: number;
  thresholds?: LearningThresholds;
  /** A load that failed (the previous snapshot stays). */
  onError?: (error: unknown) => void;
}

export const LEARNED_RELOAD_MS = 30_000;

function key(kind: OverrideKind, value: string): string {
  return `${kind} ${value}`;
}

/** The infrastructure that passed the thresholds and is not marked never disposable. */
export function learnedDisposable(
  summaries: readonly InfrastructureSummary[],
  neverDisposable: ReadonlySet<string>,
  thresholds: LearningThresholds = LEARNING_THRESHOLDS,
): InfrastructureSummary[] {
  return summaries.filter(
    (s) => isLearnedDisposable(s, thresholds) && !neverDisposable.has(key(s.kind, s.value)),
  );
}

/** Whether two maps hold the same entries. */
function sameEntries<V>(a: ReadonlyMap<string, V>, b: ReadonlyMap<string, V>): boolean {
  if (a.size !== b.size) return false;
  for (const [at, value] of a) if (b.get(at) !== value) return false;
  return true;
}

export class LearnedSnapshot implements LearnedInfrastructure {
  /** `kind value` → the disposable service learnt for it. */
  private services = new Map<string, string>();
  /** `kind value` → the action of every override. */
  private actions = new Map<string, OverrideAction>();
  /** `kind value` → every override with its note (the evidence names it). */
  private notes = new Map<string, OverrideNote>();
  /** `kind value` → listed disposable domains seen on learnt infrastructure (the evidence names them). */
  private seenOn = new Map<string, readonly string[]>();
  private never = new Set<string>();
  private domains = new Map<string, DomainOverride>();
  /** Raised by every load that finds the overrides or the learnt infrastructure changed. */
  version = 0;
  private loadedAt = Number.NEGATIVE_INFINITY;
  private readonly loading: OneAtATime;
  private readonly reloadMs: number;
  /** The first load: a check waits for it once. */
  readonly ready: Promise<void>;
  /** Whether the first load has finished (or failed). */
  loaded = false;

  constructor(private readonly options: LearnedSnapshotOptions) {
    this.reloadMs = options.reloadMs ?? LEARNED_RELOAD_MS;
    this.loading = new OneAtATime(() => this.load(), options.onError);
    this.ready = this.reload().finally(() => {
      this.loaded = true;
    });
  }

  /** Starts a reload when the snapshot is older than `reloadMs` at `now` and none runs. */
  refreshIfOld(now: Date): void {
    if (!this.loading.busy && now.getTime() - this.loadedAt >= this.reloadMs) {
      void this.reload();
    }
  }

  /**
   * Loads the snapshot after a change: a load already running may have read the store
   * before it, so it is waited for and another one started. Never rejects.
   */
  reloadAfterChange(): Promise<void> {
    return this.loading.again();
  }

  /** Loads the snapshot now (one load at a time); never rejects. */
  reload(): Promise<void> {
    return this.loading.run();
  }

  private async load(): Promise<void> {
    this.loadedAt = this.options.clock().getTime();
    const thresholds = this.options.thresholds ?? LEARNING_THRESHOLDS;
    const [summaries, overrides] = await Promise.all([
      this.options.store.infrastructure.listInfrastructure(thresholds.minDisposableDomains),
      this.options.store.overrides.listOverrides(),
    ]);
    const never = new Set<string>();
    const domains = new Map<string, DomainOverride>();
    const actions = new Map<string, OverrideAction>();
    const notes = new Map<string, OverrideNote>();
    for (const { kind, value, action, note } of overrides) {
      actions.set(key(kind, value), action);
      notes.set(key(kind, value), { action, note });
      if (kind === "domain" && action !== "never_disposable") domains.set(value, action);
      else if (kind !== "domain") never.add(key(kind, value));
    }
    const services = new Map<string, string>();
    const seenOn = new Map<string, readonly string[]>();
    for (const summary of learnedDisposable(summaries, never, thresholds)) {
      services.set(key(summary.kind, summary.value), summary.service ?? summary.value);
      seenOn.set(key(summary.kind, summary.value), summary.examples);
    }
    // A domain override's note is part of the evidence of the domain's answers: a new one moves the version too.
    const notesChanged = overrides.some(
      ({ kind, value, note }) => kind === "domain" && this.notes.get(key(kind, value))?.note !== note,
    );
    if (!sameEntries(actions, this.actions) || !sameEntries(services, this.services) || notesChanged) {
      this.version++;
    }
    this.services = services;
    this.actions = actions;
    this.notes = notes;
    this.seenOn = seenOn;
    this.never = never;
    this.domains = domains;
  }

  disposableService(kind: InfrastructureKind, value: string): string | undefined {
    return this.services.size === 0 ? undefined : this.services.get(key(kind, value));
  }

  neverDisposable(kind: InfrastructureKind, value: string): boolean {
    return this.never.size > 0 && this.never.has(key(kind, value));
  }

  domainOverride(domain: string, baseDomain: string): DomainOverride | undefined {
    if (this.domains.size === 0) return undefined;
    return this.domains.get(domain) ?? this.domains.get(baseDomain);
  }

  learntExamples(kind: InfrastructureKind, value: string): readonly string[] {
    return this.seenOn.get(key(kind, value)) ?? [];
  }

  overrideNote(kind: OverrideKind, value: string): OverrideNote | undefined {
    return this.notes.get(key(kind, value));
  }

  /** How many pieces of infrastructure are learnt disposable now. */
  get size(): number {
    return this.services.size;
  }
}
