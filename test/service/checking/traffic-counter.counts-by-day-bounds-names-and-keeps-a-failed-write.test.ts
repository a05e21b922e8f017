import { describe, expect, it } from "vitest";
import { blockReason, NAMES_PER_DAY, TrafficCounter } from "../../../src/service/checking/traffic-counter.js";
import type { TrafficCount } from "../../../src/store/index.js";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 27, 10);
const ALLOWED = {
  block: false,
  reason: "Business provider",
  domain: "shop.example",
  disposable_provider: null,
};
const DISPOSABLE = {
  block: true,
  reason: "Disposable",
  domain: "mailinator.com",
  disposable_provider: "mailinator.com",
};
const HEURISTICS = {
  block: true,
  reason: "Heuristics x2",
  domain: "odd.example",
  disposable_provider: "burner",
};

/** Rows sorted for comparison. */
function sorted(rows: TrafficCount[]) {
  return rows
    .map((row) => ({ ...row, day: row.day.toISOString().slice(0, 10) }))
    .sort((a, b) => `${a.day}${a.kind}${a.name}`.localeCompare(`${b.day}${b.kind}${b.name}`));
}

describe("the traffic counter", () => {
  it("counts checks by surface, blocks by reason, providers and blocked domains, per UTC day", () => {
    let now = T0;
    const counter = new TrafficCounter(() => now);
    counter.count("api", ALLOWED);
    counter.count("api", DISPOSABLE);
    counter.count("bulk", HEURISTICS);
    now = T0 + DAY;
    counter.count("pages", DISPOSABLE);
    expect(sorted(counter.take())).toEqual([
      { day: "2026-11-27", kind: "block", name: "Disposable", count: 1 },
      { day: "2026-11-27", kind: "block", name: "Heuristics", count: 1 },
      { day: "2026-11-27", kind: "domain", name: "mailinator.com", count: 1 },
      { day: "2026-11-27", kind: "domain", name: "odd.example", count: 1 },
      { day: "2026-11-27", kind: "provider", name: "burner", count: 1 },
      { day: "2026-11-27", kind: "provider", name: "mailinator.com", count: 1 },
      { day: "2026-11-27", kind: "surface", name: "api", count: 2 },
      { day: "2026-11-27", kind: "surface", name: "bulk", count: 1 },
      { day: "2026-11-28", kind: "block", name: "Disposable", count: 1 },
      { day: "2026-11-28", kind: "domain", name: "mailinator.com", count: 1 },
      { day: "2026-11-28", kind: "provider", name: "mailinator.com", count: 1 },
      { day: "2026-11-28", kind: "surface", name: "pages", count: 1 },
    ]);
    expect(counter.take()).toEqual([]);
  });

  it("names every heuristics block by one reason", () => {
    expect(blockReason("Heuristics x3")).toBe("Heuristics");
    expect(blockReason("Parked")).toBe("Parked");
  });

  it("keeps a failed write's counts for the next one, added to what came since", async () => {
    const counter = new TrafficCounter(() => T0);
    counter.count("jobs", ALLOWED);
    const failing = { addCounts: async () => Promise.reject(new Error("database unreachable")) };
    await expect(counter.flush(failing)).rejects.toThrow("database unreachable");
    counter.count("jobs", ALLOWED);
    const written: TrafficCount[][] = [];
    await counter.flush({ addCounts: async (rows) => void written.push([...rows]) });
    expect(written.map(sorted)).toEqual([[{ day: "2026-11-27", kind: "surface", name: "jobs", count: 2 }]]);
  });

  it("counts at most NAMES_PER_DAY distinct blocked domains a day, every block still in its reason", () => {
    let now = T0;
    const counter = new TrafficCounter(() => now);
    for (let i = 0; i <= NAMES_PER_DAY; i++) {
      counter.count("api", {
        block: true,
        reason: "NXDOMAIN",
        domain: `d${i}.example`,
        disposable_provider: null,
      });
    }
    counter.count("api", {
      block: true,
      reason: "NXDOMAIN",
      domain: "d0.example",
      disposable_provider: null,
    });
    const rows = counter.take();
    expect(rows.filter((row) => row.kind === "domain")).toHaveLength(NAMES_PER_DAY);
    expect(rows.find((row) => row.name === "d0.example")?.count).toBe(2);
    expect(rows.find((row) => row.kind === "block")?.count).toBe(NAMES_PER_DAY + 2);
    // The bound holds per day: the next day counts new names again.
    now = T0 + DAY;
    counter.count("api", {
      block: true,
      reason: "NXDOMAIN",
      domain: "new.example",
      disposable_provider: null,
    });
    expect(counter.take().filter((row) => row.kind === "domain")).toHaveLength(1);
  });
});
