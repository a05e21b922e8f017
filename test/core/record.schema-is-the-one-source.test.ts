/**
 * The record is written once, as src/core/record.ts's schema: its fields are the ones
 * docs/api.md "The record" lists, in that order, for both shapes; what the engine builds is valid
 * against it; every flag carries the label the result page shows.
 */

import { readFileSync } from "node:fs";
import { Value } from "typebox/value";
import { beforeAll, describe, expect, it } from "vitest";
import { checkInput } from "../../harness/check-input.js";
import { TEST_NAMES_ON } from "../../harness/config.js";
import { MemoryResolver } from "../../harness/memory-resolver.js";
import { Zones } from "../../harness/zones.js";
import type { CheckDeps } from "../../src/core/check.js";
import {
  type CheckRecord,
  CheckRecordSchema,
  FLAGS,
  flagLabel,
  SimpleRecordSchema,
  toSimpleRecord,
} from "../../src/core/record.js";
import { SAMPLE_RECORD } from "../../src/core/record-example.js";
import { TypoIndex } from "../../src/core/typo.js";
import { loadDomainLists } from "../../src/data/read-domain-lists.js";

const API_MD = readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8");

/** The text of docs/api.md from the heading `### <title>` to the next heading. */
function section(title: string): string {
  const start = API_MD.indexOf(`\n### ${title}`);
  expect(start, `docs/api.md has a section "${title}"`).toBeGreaterThan(0);
  const end = API_MD.indexOf("\n#", start + 1);
  return API_MD.slice(start, end);
}

/** The full shape's fields: its table's rows, `| 1 | \`valid\` | … |` (a row added between two: `| 15a |`), in order. */
function contractFullFields(): string[] {
  return [...section("Full shape").matchAll(/^\| \d+[a-z]? \| `(\w+)` \|/gm)].map(
    (match) => match[1] as string,
  );
}

/** The simple shape's fields: the names of the paragraph that follows "Exactly these fields, in this order:". */
function contractSimpleFields(): string[] {
  const text = section("Simple shape");
  const list = text.slice(text.indexOf("in this order:")).split("\n\n")[1] ?? "";
  return [...list.matchAll(/`(\w+)`/g)].map((match) => match[1] as string);
}

describe("the schema's fields are docs/api.md §4's, in its order", () => {
  it("for the full shape", () => {
    expect(Object.keys(CheckRecordSchema.properties)).toEqual(contractFullFields());
  });

  it("for the simple shape", () => {
    expect(Object.keys(SimpleRecordSchema.properties)).toEqual(contractSimpleFields());
  });

  it("with a description for every field", () => {
    for (const [field, schema] of Object.entries(CheckRecordSchema.properties)) {
      expect(schema, field).toHaveProperty("description", expect.stringMatching(/\w/));
    }
  });
});

describe("every flag", () => {
  it("is one of the contract's is_* fields, in the record's order", () => {
    expect(FLAGS).toEqual(contractFullFields().filter((field) => field.startsWith("is_")));
  });

  it("has a label of its own", () => {
    const labels = FLAGS.map(flagLabel);
    for (const [i, label] of labels.entries()) expect(label, FLAGS[i]).toMatch(/^[A-Z]/);
    expect(new Set(labels).size).toBe(FLAGS.length);
  });
});

describe("records the engine builds are valid against the schema", () => {
  const CREATED = new Date("2001-02-03T04:05:06Z");
  const zones = new Zones({
    zones: ["test"],
    names: {
      "mail.test": { MX: ["10 mx1.mail.test", "20 mx2.mail.test"], NS: ["ns.mail.test"] },
      "mx1.mail.test": { A: ["192.0.2.1"], AAAA: ["2001:db8::1"] },
      "mx2.mail.test": { A: ["192.0.2.2"] },
      "fallback.test": { A: ["192.0.2.3"] },
      "null-mx.test": { MX: ["0 ."] },
      "broken.test": { behaviour: "servfail" },
    },
  });
  let deps: CheckDeps;
  beforeAll(() => {
    const lists = loadDomainLists();
    deps = {
      lists,
      typos: new TypoIndex(lists.popular),
      resolver: new MemoryResolver(zones),
      ...TEST_NAMES_ON,
      age: {
        lookup: async (baseDomain) =>
          baseDomain === "mail.test" ? { createdAt: CREATED, source: "rdap" } : null,
      },
      clock: () => new Date("2026-11-22T12:00:00Z"),
    };
  });

  it.each([
    "mail.test",
    "admin@mail.test",
    "fallback.test",
    "null-mx.test",
    "missing.test",
    "broken.test",
    "example.com",
    "gmial.com",
    "mailinator.com",
  ])("%s", async (input) => {
    const record = await checkInput(input, deps);
    expect([...Value.Errors(CheckRecordSchema, record)]).toEqual([]);
    expect(Value.Check(CheckRecordSchema, record)).toBe(true);
    expect(Value.Check(SimpleRecordSchema, toSimpleRecord(record))).toBe(true);
  });

  it("with the age fields filled when the age is known", async () => {
    const record = await checkInput("mail.test", deps);
    expect(record).toMatchObject({
      domain_age_days: expect.any(Number),
      domain_created_at: "2001-02-03T04:05:06+00:00",
    });
  });
});

describe("the schema rejects what the contract rules out", () => {
  it.each<[string, Partial<Record<keyof CheckRecord, unknown>>]>([
    ["a risk above 100", { risk: 101 }],
    ["a fractional age", { domain_age_days: 1.5 }],
    ["a timestamp that is no date-time", { block_status_changed_at: "yesterday" }],
    ["a priority that is no integer", { mx_priorities: { "mx.example.com": "10" } }],
    ["a flag that is no boolean", { is_parked: "no" }],
  ])("%s", (_, change) => {
    expect(Value.Check(CheckRecordSchema, SAMPLE_RECORD)).toBe(true);
    expect(Value.Check(CheckRecordSchema, { ...SAMPLE_RECORD, ...change })).toBe(false);
  });

  it("a record missing a field", () => {
    const { mx_ips: _, ...missing } = SAMPLE_RECORD;
    expect(Value.Check(CheckRecordSchema, missing)).toBe(false);
  });
});
