import { expect, it } from "vitest";
import { RegistryGates } from "../../src/registry/registry-gates.js";

/** A query that answers only when released; counts the calls that really started. */
function heldQueries() {
  const releases: (() => void)[] = [];
  let started = 0;
  return {
    query: (answer: string) => () =>
      new Promise<string>((resolve) => {
        started++;
        releases.push(() => resolve(answer));
      }),
    releaseAll: () => {
      for (const release of releases.splice(0)) release();
    },
    started: () => started,
  };
}

const clock = () => new Date();

it("refuses a query at once when the registry's waiting room is full, and keeps registries apart", async () => {
  const gates = new RegistryGates(1, 2, clock);
  const held = heldQueries();
  const live = new AbortController().signal;
  const running = gates.run("rdap.a", live, held.query("first"));
  const waiting = [
    gates.run("rdap.a", live, held.query("second")),
    gates.run("rdap.a", live, held.query("third")),
  ];
  expect(await gates.run("rdap.a", live, held.query("refused"))).toBeUndefined();
  // Another registry has a queue of its own.
  const other = gates.run("rdap.b", live, held.query("other"));
  await new Promise((resolve) => setImmediate(resolve));
  expect(held.started()).toBe(2);

  for (let turn = 0; turn < 4; turn++) {
    held.releaseAll();
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(await running).toBe("first");
  expect(await Promise.all(waiting)).toEqual(["second", "third"]);
  expect(await other).toBe("other");
  expect(held.started()).toBe(4);
});

it("drops a waiting query whose look-up gave up before its turn, without sending it", async () => {
  const gates = new RegistryGates(1, 10, clock);
  const held = heldQueries();
  const live = new AbortController().signal;
  const gaveUp = new AbortController();
  const running = gates.run("rdap.a", live, held.query("first"));
  const dropped = gates.run("rdap.a", gaveUp.signal, held.query("never sent"));
  const after = gates.run("rdap.a", live, held.query("after"));
  gaveUp.abort();

  for (let turn = 0; turn < 4; turn++) {
    held.releaseAll();
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(await running).toBe("first");
  expect(await dropped).toBeUndefined();
  expect(await after).toBe("after");
  expect(held.started()).toBe(2);
});
