import { describe, expect, it } from "vitest";
import { ageInDays, domainAgeFields } from "../../src/core/age.js";

describe("ageInDays", () => {
  const now = new Date("2026-11-22T12:00:00Z");
  it.each([
    ["2026-11-22T12:00:00Z", 0],
    ["2026-11-21T12:00:01Z", 0],
    ["2026-11-21T12:00:00Z", 1],
    ["2026-11-15T23:59:59Z", 6],
    ["2026-10-23T12:00:00Z", 30],
    ["1995-08-14T04:00:00Z", 11423],
    ["2026-12-01T00:00:00Z", 0],
  ])("counts whole days since %s as %i", (createdAt, days) => {
    expect(ageInDays(new Date(createdAt), now)).toBe(days);
  });
});

describe("domainAgeFields", () => {
  const now = new Date("2026-11-22T12:00:00Z");
  it("gives days and a docs/api.md §4 timestamp when the age is known", () => {
    expect(domainAgeFields({ createdAt: new Date("2026-11-01T08:09:10.500Z") }, now)).toEqual({
      domain_age_days: 21,
      domain_created_at: "2026-11-01T08:09:10+00:00",
    });
  });

  it("gives null in both fields when the age is unknown", () => {
    expect(domainAgeFields(null, now)).toEqual({ domain_age_days: null, domain_created_at: null });
  });
});
