/**
 * What was learnt from traffic, as the check sees it: an in-memory snapshot of the
 * infrastructure that passed the thresholds (src/core/learned.ts) and of the operator's
 * overrides, a small set. It is reloaded from the store at most every `reloadMs`
 * (default 30 s), one load at a time, started by the checks themselves (no timer to
 * stop): every instance and the CLI learn from the same database. A failed load keeps
 * the previous snapshot.
 *
 * Cached records of domains on newly learnt infrastructure: `outdates()` tells the
 * record cache that a record which does not block was checked before a piece of
 * infrastructure it uses was learnt disposable; the cache checks such a record again
 * before it answers (never "Looks okay" from the cache once the infrastructure is known).
 *
 * Overrides changed by another process: setting or removing one purges the records it
 * decides at once, but until this instance reloads, its checks still see the old
 * overrides and may save a record made with them, which would then be served for
 * RECORD_TTL. So a reload that finds the overrides changed since the previous one
 * raises `generation` (the record cache drops what it remembers and looks up again a
 * check made under the old one) and hands the changed overrides to `onOverridesChanged`
 * (the checker purges again what they decide). When that fails, the next reload tries
 * again with them.
 */
import {
  type DomainOverride,
  type InfrastructureKind,
  isLearnedDisposable,
  LEARNING_THRESHOLDS,
  type LearnedInfrastructure,
  type LearningThresholds,
  type OverrideKind,
} from "../core/learned.js";
import type { CheckRecord } from "../core/record.js";
import type { InfrastructureSummary, Override, Store } from "../store/types.js";

/** An override that appeared, changed its action or was removed. */
export type OverrideChange = Pick<Override, "kind" | "value">;

export interface LearnedSnapshotOptions {
  store: Pick<Store, "infrastructure" | "overrides">;
  clock: () => Date;
  /** How old the snapshot may grow before a check starts a reload; default 30 s. */
  reloadMs?: number;
  thresholds?: LearningThresholds;
  /** A load that failed (the previous snapshot stays), or a hand-over of changes that failed (tried again). */
  onError?: (error: unknown) => void;
  /** The overrides a reload found changed since the previous one (never on the first load). */
  onOverridesChanged?: (changes: readonly OverrideChange[]) => Promise<void>;
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

export class LearnedSnapshot implements LearnedInfrastructure {
  /** `kind value` → the disposable service learnt for it. */
  private services = new Map<string, string>();
  /** `kind value` → when this instance first saw it learnt (ms). */
  private learnedAt = new Map<string, number>();
  private never = new Set<string>();
  private domains = new Map<string, DomainOverride>();
  /** `kind value` → every override, as last loaded; undefined before the first load. */
  private overrides: Map<string, Override> | undefined;
  /** Changes not yet handed to `onOverridesChanged` successfully. */
  private unhandled = new Map<string, OverrideChange>();
  /** Raised by every reload that finds the overrides changed. */
  generation = 0;
  /** When a piece of infrastructure last became disposable (ms); 0: never. */
  private changedAt = 0;
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;
  private readonly reloadMs: number;
  /** The first load: a check waits for it once. */
  readonly ready: Promise<void>;
  /** Whether the first load has finished (or failed). */
  loaded = false;

  constructor(private readonly options: LearnedSnapshotOptions) {
    this.reloadMs = options.reloadMs ?? LEARNED_RELOAD_MS;
    this.ready = this.reload().finally(() => {
      this.loaded = true;
    });
  }

  /** Starts a reload when the snapshot is older than `reloadMs` at `now` and none runs. */
  refreshIfOld(now: Date): void {
    if (this.loading === undefined && now.getTime() - this.loadedAt >= this.reloadMs) {
      void this.reload();
    }
  }

  /**
   * Loads the snapshot after a change this process made: a load already running may have
   * read the store before it, so it is waited for and another one started. Never rejects.
   */
  async reloadAfterChange(): Promise<void> {
    await this.loading;
    await this.reload();
  }

  /** Loads the snapshot now (one load at a time); never rejects. */
  reload(): Promise<void> {
    this.loading ??= this.load()
      .catch((error: unknown) => this.options.onError?.(error))
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  private async load(): Promise<void> {
    const now = this.options.clock().getTime();
    this.loadedAt = now;
    const thresholds = this.options.thresholds ?? LEARNING_THRESHOLDS;
    const [summaries, overrides] = await Promise.all([
      this.options.store.infrastructure.listInfrastructure(thresholds.minDisposableDomains),
      this.options.store.overrides.listOverrides(),
    ]);
    const never = new Set<string>();
    const domains = new Map<string, DomainOverride>();
    const byKey = new Map<string, Override>();
    for (const override of overrides) {
      const { kind, value, action } = override;
      byKey.set(key(kind, value), override);
      if (kind === "domain" && action !== "never_disposable") domains.set(value, action);
      else if (kind !== "domain") never.add(key(kind, value));
    }
    const services = new Map<string, string>();
    const learnedAt = new Map<string, number>();
    for (const summary of learnedDisposable(summaries, never, thresholds)) {
      const at = key(summary.kind, summary.value);
      services.set(at, summary.service ?? summary.value);
      const known = this.learnedAt.get(at);
      learnedAt.set(at, known ?? now);
      if (known === undefined) this.changedAt = now;
    }
    this.services = services;
    this.learnedAt = learnedAt;
    this.never = never;
    this.domains = domains;
    const previous = this.overrides;
    this.overrides = byKey;
    if (previous) this.noteChanges(previous, byKey);
    await this.handOverChanges();
  }

  /** Records what differs between two loads of the overrides; raises `generation` when anything does. */
  private noteChanges(previous: Map<string, Override>, current: Map<string, Override>): void {
    let changed = false;
    for (const [at, override] of current) {
      if (previous.get(at)?.action === override.action) continue;
      this.unhandled.set(at, { kind: override.kind, value: override.value });
      changed = true;
    }
    for (const [at, override] of previous) {
      if (current.has(at)) continue;
      this.unhandled.set(at, { kind: override.kind, value: override.value });
      changed = true;
    }
    if (changed) this.generation++;
  }

  /** Hands the changes over; kept for the next load when that fails. */
  private async handOverChanges(): Promise<void> {
    const { onOverridesChanged } = this.options;
    if (this.unhandled.size === 0 || !onOverridesChanged) {
      this.unhandled.clear();
      return;
    }
    const changes = [...this.unhandled.values()];
    this.unhandled.clear();
    try {
      await onOverridesChanged(changes);
    } catch (error) {
      for (const change of changes) this.unhandled.set(key(change.kind, change.value), change);
      this.options.onError?.(error);
    }
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

  /** How many pieces of infrastructure are learnt disposable now. */
  get size(): number {
    return this.services.size;
  }

  /**
   * Whether a stored record that does not block was checked before a piece of
   * infrastructure it uses (an MX host or address) was learnt disposable: then it must
   * be checked again before it is answered.
   */
  outdates(record: CheckRecord, checkedAt: Date): boolean {
    const checked = checkedAt.getTime();
    if (record.block || checked >= this.changedAt) return false;
    for (const host of record.mx_hosts)
      if ((this.learnedAt.get(key("mx_host", host)) ?? 0) > checked) return true;
    for (const ip of record.mx_ips) if ((this.learnedAt.get(key("mx_ip", ip)) ?? 0) > checked) return true;
    return false;
  }
}
