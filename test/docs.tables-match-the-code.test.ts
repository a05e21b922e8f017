/**
 * The configuration, CLI and verdict tables of docs/api.md and docs/verdicts.md are
 * generated from the code (scripts/docs-tables/generate.ts): a file that differs from
 * what the code says fails here until `npm run docs:tables` rewrites it.
 */
import { describe, expect, it } from "vitest";
import { generatedFiles } from "../scripts/docs-tables/generate.js";

describe("docs tables", () => {
  it.each(generatedFiles())("$file matches the code", ({ file, current, expected }) => {
    expect(current, `${file} differs from the code: run npm run docs:tables`).toBe(expected);
  });
});
