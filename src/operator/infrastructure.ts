/**
 * What was learnt from traffic (docs/verdicts.md "Learned infrastructure"): each piece of
 * infrastructure with its counts of distinct domains by listed status, the service it
 * names, examples, and its state.
 */
import { type Static, Type } from "typebox";
import { isLearnedDisposable, LEARNING_THRESHOLDS } from "../core/learned.js";
import { nullable } from "../core/schema-types.js";
import type { InfrastructureSummary, Store } from "../store/index.js";

const InfrastructureSchema = Type.Object({
  kind: Type.Union([Type.Literal("mx_host"), Type.Literal("mx_ip"), Type.Literal("ns")]),
  value: Type.String(),
  state: Type.Union([
    Type.Literal("disposable"),
    Type.Literal("never disposable (operator)"),
    Type.Literal("has good domains"),
    Type.Literal("below thresholds"),
  ]),
  disposable: Type.Integer({ description: "Distinct listed disposable domains seen on it." }),
  good: Type.Integer(),
  unknown: Type.Integer(),
  service: nullable<string>("string"),
  examples: Type.Array(Type.String()),
});
export type InfrastructureJson = Static<typeof InfrastructureSchema>;

function state(summary: InfrastructureSummary, never: ReadonlySet<string>): InfrastructureJson["state"] {
  if (never.has(`${summary.kind} ${summary.value}`)) return "never disposable (operator)";
  if (summary.good > 0) return "has good domains";
  return isLearnedDisposable(summary) ? "disposable" : "below thresholds";
}

/**
 * What is learnt disposable, or with `all` everything with at least one listed disposable
 * domain seen on it.
 */
export async function listInfrastructure(
  store: Pick<Store, "infrastructure" | "overrides">,
  all: boolean,
): Promise<InfrastructureJson[]> {
  const [summaries, overrides] = await Promise.all([
    store.infrastructure.listInfrastructure(all ? 1 : LEARNING_THRESHOLDS.minDisposableDomains),
    store.overrides.listOverrides(),
  ]);
  const never = new Set(overrides.filter((o) => o.kind !== "domain").map((o) => `${o.kind} ${o.value}`));
  return summaries
    .map((summary) => ({
      kind: summary.kind,
      value: summary.value,
      state: state(summary, never),
      disposable: summary.disposable,
      good: summary.good,
      unknown: summary.unknown,
      service: summary.service,
      examples: summary.examples,
    }))
    .filter((summary) => all || summary.state === "disposable");
}
