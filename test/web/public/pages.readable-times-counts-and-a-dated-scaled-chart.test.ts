/**
 * Pages a person reads (docs/accounts.md "Pages a person reads"): times as `27 Nov 2026,
 * 18:36 UTC` with the ISO form in a `<time>`'s `datetime`, counts with thousands
 * separators, and a use chart whose period total is what was counted less what was given
 * back, with its bars dated and its axis scaled.
 */
import { describe, expect, it } from "vitest";
import { readableCount, timeHtml } from "../../../src/page-kit/readable.js";
import { usageChart } from "../../../src/web/member/usage-chart.js";

describe("readable figures", () => {
  it("shows a time readably, keeping the ISO form in datetime", () => {
    expect(String(timeHtml("2026-11-27T18:36:33.000Z"))).toBe(
      '<time datetime="2026-11-27T18:36:33.000Z">27 Nov 2026, 18:36 UTC</time>',
    );
    expect(String(timeHtml(new Date("2026-01-05T04:07:00Z")))).toContain(">5 Jan 2026, 04:07 UTC<");
    expect(String(timeHtml("not a time"))).toBe("not a time");
  });

  it("separates thousands", () => {
    expect([0, 999, 1000, 66011, 1234567, -4200].map(readableCount)).toEqual([
      "0",
      "999",
      "1,000",
      "66,011",
      "1,234,567",
      "-4,200",
    ]);
  });
});

describe("the use chart", () => {
  const day = (iso: string) => new Date(`${iso}T00:00:00Z`);
  const svg = String(
    usageChart(
      "c",
      "All keys",
      [
        { day: day("2026-10-20"), used: 5 },
        { day: day("2026-11-02"), used: 1200 },
        { day: day("2026-11-03"), used: -200 },
      ],
      day("2026-10-06"),
      new Date("2026-11-01T10:00:00Z"),
      new Date("2026-12-01T10:00:00Z"),
    ),
  );

  it("totals the period as counted less given back, with separators", () => {
    expect(svg).toContain('data-chart-current="1000"');
    expect(svg).toContain('data-chart-previous="5"');
    expect(svg).toContain("1,000 checks this period, 5 in the previous one");
  });

  it("labels bars with dates and the axis with a scale", () => {
    expect(svg).toContain("<title>2 Nov 2026: 1,200 checks</title>");
    expect(svg).toMatch(/<text[^>]*>6 Oct<\/text>/);
    expect(svg).toMatch(/<text[^>]*text-anchor="end"[^>]*>2,000<\/text>/);
    expect(svg).toMatch(/<text[^>]*text-anchor="end"[^>]*>0<\/text>/);
  });

  it("marks only whole numbers on the scale of a nearly empty chart", () => {
    const empty = String(usageChart("e", "Key", [], day("2026-11-01"), day("2026-11-01"), day("2026-11-30")));
    const marks = [...empty.matchAll(/text-anchor="end"[^>]*>([^<]+)</g)].map(([, mark]) => mark);
    expect(marks).toEqual(["0", "1"]);
  });
});
