/** The three promises of the evidence (docs/api.md "Evidence (`explain=true`)"), for the tests of every route and world. */
import { Value } from "typebox/value";
import { expect } from "vitest";
import { type EvidenceItem, EvidenceItemSchema } from "../../src/core/evidence.js";
import { type CheckRecord, FLAGS } from "../../src/core/record.js";

/**
 * Every item fits its schema; a blocked answer has an item; every true flag has the item
 * that set it; the items' `risk` add up to the record's. `what` names the case in failures.
 */
export function expectExplained(
  record: Pick<CheckRecord, "block" | "risk" | (typeof FLAGS)[number]>,
  items: readonly EvidenceItem[],
  what: string,
): void {
  for (const item of items) {
    expect(Value.Check(EvidenceItemSchema, item), `${what}: ${JSON.stringify(item)}`).toBe(true);
  }
  if (record.block) expect(items.length, `${what}: blocked without evidence`).toBeGreaterThan(0);
  const flagged = new Set<string | undefined>(items.map((item) => ("flag" in item ? item.flag : undefined)));
  for (const flag of FLAGS) {
    if (record[flag]) expect(flagged.has(flag), `${what}: ${flag} is true without its item`).toBe(true);
  }
  const sum = items.reduce((total, item) => total + (item.risk ?? 0), 0);
  expect(sum, `${what}: the items' risks add up to the record's ${record.risk}`).toBe(record.risk);
}
