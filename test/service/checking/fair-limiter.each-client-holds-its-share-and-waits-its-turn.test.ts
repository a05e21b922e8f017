/**
 * The fair limiter behind the look-up budgets: a client never holds more than its share
 * of the slots, a freed slot goes round-robin to the clients waiting (so a newcomer
 * waits for one slot, never behind another client's queue), the process's own work is
 * capped only by the budget, and each client's tasks run in order.
 */
import { describe, expect, it } from "vitest";
import { FairLimiter } from "../../../src/service/checking/fair-limiter.js";
import { LookupBudget } from "../../../src/service/checking/lookup-budget.js";

/** Tasks that finish when the test says so, remembering the order they started in. */
function heldTasks() {
  const started: string[] = [];
  const running = new Map<string, () => void>();
  return {
    started,
    task: (name: string) => () =>
      new Promise<string>((resolve) => {
        started.push(name);
        running.set(name, () => resolve(name));
      }),
    finish(name: string) {
      running.get(name)?.();
      running.delete(name);
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("FairLimiter", () => {
  it("lets one client hold at most its share, while another starts at once", async () => {
    const limiter = new FairLimiter(8, 4);
    const tasks = heldTasks();
    const flood = Array.from({ length: 300 }, (_, i) => limiter.run(tasks.task(`a${i}`), "127.0.0.2"));
    await tick();
    expect(tasks.started).toEqual(["a0", "a1", "a2", "a3"]);
    expect([limiter.running, limiter.waiting]).toEqual([4, 296]);
    const other = limiter.run(tasks.task("b0"), "127.0.0.3");
    await tick();
    expect(tasks.started.at(-1)).toBe("b0");
    tasks.finish("b0");
    expect(await other).toBe("b0");
    for (let i = 0; i < 300; i++) {
      await tick();
      tasks.finish(`a${i}`);
    }
    await Promise.all(flood);
    expect(tasks.started.filter((name) => name.startsWith("a"))).toEqual(
      Array.from({ length: 300 }, (_, i) => `a${i}`),
    );
  });

  it("gives freed slots to the waiting clients in turn", async () => {
    const limiter = new FairLimiter(2, 2);
    const tasks = heldTasks();
    const all = [
      ...["a0", "a1", "a2", "a3"].map((name) => limiter.run(tasks.task(name), "a")),
      ...["b0", "b1"].map((name) => limiter.run(tasks.task(name), "b")),
      ...["c0"].map((name) => limiter.run(tasks.task(name), "c")),
    ];
    await tick();
    expect(tasks.started).toEqual(["a0", "a1"]);
    for (let finished = 0; finished < 7; finished++) {
      tasks.finish(tasks.started[finished] as string);
      await tick();
    }
    await Promise.all(all);
    // a was first in line, then each waiting client in turn: not a's whole queue first.
    expect(tasks.started).toEqual(["a0", "a1", "a2", "b0", "c0", "a3", "b1"]);
  });

  it("caps the process's own work by the budget alone", async () => {
    const limiter = new FairLimiter(8, 4);
    const tasks = heldTasks();
    const own = Array.from({ length: 20 }, (_, i) => limiter.run(tasks.task(`p${i}`)));
    await tick();
    expect(limiter.running).toBe(8);
    for (let i = 0; i < 20; i++) {
      tasks.finish(`p${i}`);
      await tick();
    }
    await Promise.all(own);
  });

  it("passes a task's failure to its caller and frees the slot", async () => {
    const limiter = new FairLimiter(1, 1);
    await expect(limiter.run(() => Promise.reject(new Error("no")), "a")).rejects.toThrow("no");
    expect(await limiter.run(async () => "next", "a")).toBe("next");
    await tick();
    expect([limiter.running, limiter.waiting]).toEqual([0, 0]);
  });
});

describe("LookupBudget", () => {
  it("keeps the pages and the API apart: a page flood leaves the API budget whole", async () => {
    const budget = new LookupBudget({ api: 4, pages: 2 });
    const tasks = heldTasks();
    const pages = Array.from({ length: 50 }, (_, i) =>
      budget.run(tasks.task(`page${i}`), { budget: "pages", client: "127.0.0.2" }),
    );
    await tick();
    // One address holds half the pages' budget.
    expect(tasks.started).toEqual(["page0"]);
    const api = Array.from({ length: 2 }, (_, i) =>
      budget.run(tasks.task(`api${i}`), { budget: "api", client: "key-1" }),
    );
    await tick();
    expect(tasks.started).toEqual(["page0", "api0", "api1"]);
    expect([budget.running, budget.waiting]).toEqual([3, 49]);
    tasks.finish("api0");
    tasks.finish("api1");
    await Promise.all(api);
    for (let i = 0; i < 50; i++) {
      tasks.finish(`page${i}`);
      await tick();
    }
    await Promise.all(pages);
  });
});
