/**
 * The client's record, evidence, problem and usage types are printed from the server's
 * schemas (scripts/client-types/generate.ts), never written again: the file fails here
 * when it differs from the schemas (`npm run client:types` rewrites it), and the type
 * checks below fail `npm run typecheck` when the two drift apart.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { generatedWireTypes } from "../../../scripts/client-types/generate.js";
import type { EvidenceItem as ServerEvidenceItem } from "../../../src/core/evidence.js";
import type { CheckRecord as ServerRecord } from "../../../src/core/record.js";
import type { ProblemCode as ServerProblemCode } from "../../../src/service/shared/problem-codes.js";
import type { CheckRecord, EvidenceItem, ProblemCode, Usage } from "../src/index.js";

describe("the client's wire types", () => {
  it("are the file the server's schemas print", () => {
    const { file, current, expected } = generatedWireTypes();
    expect(current, `${file} differs from the schemas: run npm run client:types`).toBe(expected);
  });

  it("are the server's own types", () => {
    expectTypeOf<CheckRecord>().toEqualTypeOf<ServerRecord>();
    expectTypeOf<EvidenceItem>().toEqualTypeOf<ServerEvidenceItem>();
    expectTypeOf<ProblemCode>().toEqualTypeOf<ServerProblemCode>();
    expectTypeOf<Usage>().toEqualTypeOf<{
      plan: string;
      limit: number | null;
      used: number;
      remaining: number | null;
      reset_at: string;
    }>();
  });
});
