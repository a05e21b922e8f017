/**
 * LearnedSnapshot on a fake store (unit): each reload that finds the operator's
 * overrides changed since the previous one (set, action changed, removed) raises the
 * generation and hands the changes over once; the first load reports nothing (this
 * instance checked nothing under older ones); a hand-over that fails is tried again
 * by the next reload; a reload after a change of this process's own never settles for a
 * load that read the store before it.
 */
import { describe, expect, it } from "vitest";
import type { OverrideChange } from "../../src/service/learned-snapshot.js";
import { LearnedSnapshot } from "../../src/service/learned-snapshot.js";
import type { Override } from "../../src/store/types.js";

const AT = new Date("2026-03-01T00:00:00Z");

function override(kind: Override["kind"], value: string, action: Override["action"]): Override {
  return { kind, value, action, note: null, createdAt: AT };
}

function snapshotOver(
  overrides: Override[],
  handOver: (changes: readonly OverrideChange[]) => Promise<void>,
) {
  const errors: unknown[] = [];
  const snapshot = new LearnedSnapshot({
    store: {
      infrastructure: { listInfrastructure: async () => [] } as never,
      overrides: { listOverrides: async () => [...overrides] } as never,
    },
    clock: () => AT,
    onError: (error) => errors.push(error),
    onOverridesChanged: handOver,
  });
  return { snapshot, errors };
}

describe("LearnedSnapshot and the operator's overrides", () => {
  it("hands over each change once, with the generation raised per reload that saw one", async () => {
    const overrides = [override("domain", "kept.example", "deny")];
    const handed: OverrideChange[][] = [];
    const { snapshot, errors } = snapshotOver(overrides, async (changes) => {
      handed.push([...changes]);
    });
    await snapshot.ready;
    await snapshot.reload();
    expect([snapshot.generation, handed]).toEqual([0, []]);

    overrides.push(
      override("domain", "allowed.example", "allow"),
      override("mx_host", "mx.example", "never_disposable"),
    );
    await snapshot.reload();
    expect(snapshot.generation).toBe(1);
    expect(handed).toEqual([
      [
        { kind: "domain", value: "allowed.example" },
        { kind: "mx_host", value: "mx.example" },
      ],
    ]);
    expect(snapshot.domainOverride("allowed.example", "allowed.example")).toBe("allow");

    overrides[1] = override("domain", "allowed.example", "deny");
    overrides.splice(2, 1);
    await snapshot.reload();
    expect(snapshot.generation).toBe(2);
    expect(handed[1]).toEqual([
      { kind: "domain", value: "allowed.example" },
      { kind: "mx_host", value: "mx.example" },
    ]);
    expect(snapshot.neverDisposable("mx_host", "mx.example")).toBe(false);

    await snapshot.reload();
    expect([snapshot.generation, handed.length, errors]).toEqual([2, 2, []]);
  });

  it("tries a failed hand-over again on the next reload, and only until it succeeds", async () => {
    const overrides: Override[] = [];
    let failing = true;
    const handed: OverrideChange[][] = [];
    const { snapshot, errors } = snapshotOver(overrides, async (changes) => {
      handed.push([...changes]);
      if (failing) throw new Error("database locked");
    });
    await snapshot.ready;
    overrides.push(override("domain", "denied.example", "deny"));
    await snapshot.reload();
    // The snapshot itself is current: checks see the override at once.
    expect(snapshot.domainOverride("denied.example", "denied.example")).toBe("deny");
    expect([snapshot.generation, errors.length]).toEqual([1, 1]);
    failing = false;
    await snapshot.reload();
    await snapshot.reload();
    expect(handed).toEqual([
      [{ kind: "domain", value: "denied.example" }],
      [{ kind: "domain", value: "denied.example" }],
    ]);
    expect(snapshot.generation).toBe(1);
  });

  it("reloads after a change of its own with a load that began after it, not the one running", async () => {
    const overrides: Override[] = [];
    let release: () => void = () => undefined;
    let held = false;
    const snapshot = new LearnedSnapshot({
      store: {
        infrastructure: { listInfrastructure: async () => [] } as never,
        overrides: {
          listOverrides: async () => {
            const read = [...overrides];
            if (held) await new Promise<void>((resolve) => (release = resolve));
            return read;
          },
        } as never,
      },
      clock: () => AT,
    });
    await snapshot.ready;
    held = true;
    const running = snapshot.reload(); // reads the store before the change, then waits
    held = false;
    overrides.push(override("domain", "denied.example", "deny"));
    const afterChange = snapshot.reloadAfterChange();
    release();
    await Promise.all([running, afterChange]);
    expect(snapshot.domainOverride("denied.example", "denied.example")).toBe("deny");
    expect(snapshot.generation).toBe(1);
  });
});
