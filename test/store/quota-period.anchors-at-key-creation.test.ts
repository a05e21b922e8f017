import { describe, expect, it } from "vitest";
import { quotaPeriod } from "../../src/store/quota-period.js";

const DAY = 86_400_000;
const CREATED = new Date("2024-01-31T23:59:59.999Z");
const at = (ms: number) => new Date(CREATED.getTime() + ms);

describe("quotaPeriod", () => {
  it.each([
    ["at creation", 0, 30, 0],
    ["one millisecond before the first reset", 30 * DAY - 1, 30, 0],
    ["exactly at the first reset", 30 * DAY, 30, 30 * DAY],
    ["deep into the fourth period", 100 * DAY, 30, 90 * DAY],
    ["one-day periods", 2.5 * DAY, 1, 2 * DAY],
    ["before creation (clock skew): the first period", -5000, 30, 0],
  ])("%s", (_, offset, periodDays, startOffset) => {
    expect(quotaPeriod(CREATED, periodDays, at(offset))).toEqual({
      start: at(startOffset),
      end: at(startOffset + periodDays * DAY),
    });
  });
});
