import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { InvalidPlanError, PlanExistsError } from "../../src/core/refusals.js";

describe.each(DATABASE_KINDS)("plans on %s", (kind) => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTestStore(kind);
  });
  afterEach(() => db.cleanup());

  it("creates a plan and lists it after the built-in ones", async () => {
    expect(await db.store.plans.createPlan({ name: "pro", quota: 50_000, periodDays: 7 })).toEqual({
      name: "pro",
      quota: 50_000,
      periodDays: 7,
    });
    expect(await db.store.plans.listPlans()).toEqual([
      { name: "free", quota: 1000, periodDays: 30 },
      { name: "unlimited", quota: null, periodDays: 30 },
      { name: "pro", quota: 50_000, periodDays: 7 },
    ]);
  });

  it("refuses a second plan of the same name and keeps the first", async () => {
    await expect(db.store.plans.createPlan({ name: "free", quota: 5, periodDays: 1 })).rejects.toBeInstanceOf(
      PlanExistsError,
    );
    expect(await db.store.plans.getPlan("free")).toEqual({ name: "free", quota: 1000, periodDays: 30 });
  });

  it.each([
    { name: "", quota: 1, periodDays: 1 },
    { name: "Pro", quota: 1, periodDays: 1 },
    { name: "-pro", quota: 1, periodDays: 1 },
    { name: "with space", quota: 1, periodDays: 1 },
    { name: "x".repeat(65), quota: 1, periodDays: 1 },
    { name: "pro", quota: -1, periodDays: 1 },
    { name: "pro", quota: 1.5, periodDays: 1 },
    { name: "pro", quota: 2 ** 31, periodDays: 1 },
    { name: "pro", quota: 1, periodDays: 0 },
    { name: "pro", quota: 1, periodDays: 3651 },
  ])("refuses the invalid plan %o", async (plan) => {
    await expect(db.store.plans.createPlan(plan)).rejects.toBeInstanceOf(InvalidPlanError);
  });

  it("accepts a plan with quota 0 (every request refused)", async () => {
    await expect(
      db.store.plans.createPlan({ name: "suspended", quota: 0, periodDays: 30 }),
    ).resolves.toMatchObject({
      quota: 0,
    });
  });
});
