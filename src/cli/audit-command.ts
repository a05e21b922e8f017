/** `mailrisk audit list` (docs/console.md "The audit log"): adapts src/operator/audit.ts. */
import { type AuditEntryJson, searchAudit } from "../operator/audit.js";
import { limitOf } from "../operator/refusal.js";
import { commandRunner } from "./arguments.js";
import { formatTable } from "./table.js";
import { answering } from "./with-store.js";

function auditText(entries: AuditEntryJson[]): string {
  if (entries.length === 0) return "No changes recorded.\n";
  const rows = entries.map((entry) => [
    entry.at,
    entry.actor,
    entry.action,
    entry.entity_id === null ? entry.entity_kind : `${entry.entity_kind}:${entry.entity_id}`,
    JSON.stringify(entry.detail),
  ]);
  return `${formatTable([["AT", "ACTOR", "ACTION", "ENTITY", "DETAIL"], ...rows])}\n`;
}

export const run = commandRunner("audit", {
  list: answering((store, given) => {
    const filter = {
      actor: given.text("actor"),
      action: given.text("action"),
      entity: given.text("entity"),
      limit: limitOf(given.text("limit")),
    };
    return searchAudit(store, filter);
  }, auditText),
});
