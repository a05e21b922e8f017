/**
 * `mailrisk infra list` (docs/verdicts.md, "Learned infrastructure"): the CLI's adapter of
 * src/operator/infrastructure.ts, with the thresholds what it shows passed; its form in commands.ts.
 */
import { LEARNING_THRESHOLDS } from "../core/learned.js";
import { type InfrastructureJson, listInfrastructure } from "../operator/infrastructure.js";
import { commandRunner } from "./arguments.js";
import { formatTable } from "./table.js";
import { answering } from "./with-store.js";

function infrastructureText(shown: InfrastructureJson[]): string {
  const header = ["KIND", "VALUE", "STATE", "DISPOSABLE", "GOOD", "UNKNOWN", "SERVICE", "EXAMPLES"];
  const rows = shown.map((s) => [
    s.kind,
    s.value,
    s.state,
    String(s.disposable),
    String(s.good),
    String(s.unknown),
    s.service ?? "",
    s.examples.join(", "),
  ]);
  const { minDisposableDomains, minDisposableShare } = LEARNING_THRESHOLDS;
  return (
    `${formatTable([header, ...rows])}\n` +
    `\nThresholds: at least ${minDisposableDomains} distinct listed disposable domains, at least ${minDisposableShare * 100} % of the domains seen, no known-good or provider domain.\n`
  );
}

export const run = commandRunner("infra", {
  list: answering((store, given) => listInfrastructure(store, given.flag("all")), infrastructureText),
});
