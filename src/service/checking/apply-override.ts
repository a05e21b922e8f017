/**
 * The operator's overrides (docs/api.md "Administration", `mailrisk overrides`). Verdicts are decided
 * when answering, so an override takes effect on the next answer of every server (the
 * store raises the change signal; each server reloads its overrides within a second):
 * nothing is purged.
 */
import { overrideProblem } from "../../core/learned.js";
import type { Override, Store } from "../../store/index.js";

export class InvalidOverrideError extends Error {}

/** Sets an override; `InvalidOverrideError` for an action its kind does not take. */
export async function applyOverride(store: Pick<Store, "overrides">, override: Override): Promise<Override> {
  const problem = overrideProblem(override.kind, override.action);
  if (problem !== null) throw new InvalidOverrideError(problem);
  return store.overrides.setOverride(override);
}
