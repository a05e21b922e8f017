/**
 * Takes every change of keys, plans, overrides and records into this process within a
 * second, whoever made it (the admin API, the CLI, another instance): it polls the
 * store's change counters (src/store/changes.ts) every `pollMs` and, for each topic whose
 * counter moved, drops what this process remembers of it. `settle()` lets the admin API
 * answer only once its own change holds here.
 */

import { policyVersion } from "../../store/changes-types.js";
import type { ChangesRepository, ChangeTopic, Store } from "../../store/index.js";
import { PeriodicTask } from "../shared/periodic-task.js";
import type { Checker } from "./checker.js";

/** How often the counters are read: a change holds everywhere within about this much. */
export const CHANGE_POLL_MS = 500;

export interface ChangeWatcherOptions {
  changes: Pick<ChangesRepository, "versions">;
  /** What a change of each topic drops here. */
  onChange: Record<ChangeTopic, () => void | Promise<void>>;
  pollMs?: number;
  /** The first poll that failed after one that did not (the database is down); the next poll tries again. */
  onError?: (error: unknown) => void;
}

export class ChangeWatcher {
  /** The counters last seen; undefined before the first poll. */
  private seen: Map<string, number> | undefined;
  /** The counters whose changes hold here: set once what a reading dropped is reloaded. */
  private applied: Map<string, number> | undefined;
  private readonly polling: PeriodicTask;
  private failing = false;

  constructor(private readonly options: ChangeWatcherOptions) {
    this.polling = new PeriodicTask({
      run: () =>
        this.read().then(() => {
          this.failing = false;
        }),
      everyMs: options.pollMs ?? CHANGE_POLL_MS,
      onError: (error) => {
        if (!this.failing) this.options.onError?.(error);
        this.failing = true;
      },
    });
  }

  /** Reads the counters now and at every `pollMs`; the first reading only sets what was seen. */
  start(): Promise<void> {
    this.polling.start();
    return this.poll();
  }

  /** Resolves once every change made before the call holds here; never rejects. */
  settle(): Promise<void> {
    return this.polling.runAgain();
  }

  /** One reading at a time; never rejects. */
  poll(): Promise<void> {
    return this.polling.runNow();
  }

  /**
   * The policy version (overrides and lists) whose changes hold here, or undefined before
   * the first poll: while a reload of a change is under way it is still the older one.
   */
  policyVersion(): number | undefined {
    return this.applied && policyVersion(this.applied);
  }

  private async read(): Promise<void> {
    const versions = await this.options.changes.versions();
    const seen = this.seen;
    this.seen = versions;
    if (seen !== undefined) {
      const moved = Object.entries(this.options.onChange).filter(
        ([topic]) => versions.get(topic) !== seen.get(topic),
      );
      await Promise.all(moved.map(([, drop]) => drop()));
    }
    this.applied = versions;
  }

  stop(): Promise<void> {
    return this.polling.stop();
  }
}

/** The watcher of a server, not started: keys and plans forget remembered keys, overrides and lists reload, purges forget remembered facts, an account's list changed drops that list. */
export function changeWatcherOf(
  store: Pick<Store, "changes" | "forgetKeys">,
  checker: Pick<Checker, "forgetRemembered" | "reloadSources">,
  onError?: (error: unknown) => void,
  pollMs?: number,
): ChangeWatcher {
  return new ChangeWatcher({
    changes: store.changes,
    onChange: {
      keys: () => store.forgetKeys(),
      overrides: () => checker.reloadSources?.("overrides"),
      lists: () => checker.reloadSources?.("lists"),
      account_lists: () => checker.reloadSources?.("account_lists"),
      records: () => checker.forgetRemembered?.(),
    },
    onError,
    pollMs,
  });
}
