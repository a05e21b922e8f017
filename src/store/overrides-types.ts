/**
 * The operator's overrides: the repository's contract and rows, implemented in
 * src/store/overrides-repository.ts.
 */
import type { OverrideAction, OverrideKind } from "../core/learned.js";

export interface Override {
  kind: OverrideKind;
  value: string;
  action: OverrideAction;
  note: string | null;
  createdAt: Date;
}

/** The operator's overrides (docs/api.md "Administration"): a domain allowed or denied, infrastructure never disposable. */
export interface OverridesRepository {
  /** Sets (or replaces) the override of a domain or piece of infrastructure. */
  setOverride(override: Override): Promise<Override>;
  /** Whether there was one to remove. */
  removeOverride(kind: OverrideKind, value: string): Promise<boolean>;
  listOverrides(): Promise<Override[]>;
}
