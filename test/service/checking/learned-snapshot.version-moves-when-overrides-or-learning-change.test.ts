/**
 * LearnedSnapshot on a fake store (unit): its `version` moves by one with each load that
 * finds the operator's overrides (set, action changed, removed) or the infrastructure
 * learnt disposable changed, and stands otherwise, so the record cache decides its
 * answers again exactly when what decides them changed. A failed load keeps the
 * previous snapshot and version; a reload after a change of this process's own never
 * settles for a load that read the store before it.
 */
import { describe, expect, it } from "vitest";
import { LearnedSnapshot } from "../../../src/service/checking/learned-snapshot.js";
import type { InfrastructureSummary, Override } from "../../../src/store/index.js";

const AT = new Date("2026-03-01T00:00:00Z");

function override(
  kind: Override["kind"],
  value: string,
  action: Override["action"],
  note?: string,
): Override {
  return { kind, value, action, note: note ?? null, createdAt: AT };
}

/** An MX host seen with these distinct domains (three listed disposable ones pass the thresholds). */
function mxHost(value: string, disposable: number, good = 0, unknown = 0): InfrastructureSummary {
  return { kind: "mx_host", value, service: "tempmail.test", examples: [], disposable, good, unknown };
}

/** A snapshot over mutable overrides and infrastructure; `state.failing` makes loads throw. */
function snapshotOver(
  overrides: Override[] = [],
  infrastructure: InfrastructureSummary[] = [],
  failing = false,
) {
  const errors: unknown[] = [];
  const state = { failing };
  const failIfAsked = () => {
    if (state.failing) throw new Error("database unreachable");
  };
  const snapshot = new LearnedSnapshot({
    store: {
      infrastructure: {
        listInfrastructure: async (min: number) => {
          failIfAsked();
          return infrastructure.filter((summary) => summary.disposable >= min).map((s) => ({ ...s }));
        },
      } as never,
      overrides: {
        listOverrides: async () => {
          failIfAsked();
          return overrides.map((o) => ({ ...o }));
        },
      } as never,
    },
    clock: () => AT,
    onError: (error) => errors.push(error),
  });
  return { snapshot, errors, state };
}

describe("LearnedSnapshot's version", () => {
  it("stands on a reload that finds nothing that decides a verdict changed", async () => {
    const overrides = [
      override("domain", "denied.test", "deny"),
      override("mx_host", "mx.shared.test", "never_disposable"),
    ];
    const { snapshot, errors } = snapshotOver(overrides, [mxHost("mx.tempmail.test", 5)]);
    await snapshot.ready;
    const first = snapshot.version;
    await snapshot.reload();
    expect(snapshot.version).toBe(first);
    // The same overrides in another order, a new note, more sightings of what was learnt: the same.
    overrides.reverse();
    overrides[0] = override("mx_host", "mx.shared.test", "never_disposable", "shared by a hosting company");
    await snapshot.reload();
    expect([snapshot.version, errors]).toEqual([first, []]);
    expect(snapshot.domainOverride("denied.test", "denied.test")).toBe("deny");
  });

  it("moves once per load that finds an override set, its action changed, or removed", async () => {
    const overrides: Override[] = [];
    const { snapshot } = snapshotOver(overrides);
    await snapshot.ready;
    const start = snapshot.version;

    overrides.push(
      override("domain", "shop.test", "allow"),
      override("ns", "ns.host.test", "never_disposable"),
    );
    await snapshot.reload();
    expect(snapshot.version).toBe(start + 1);
    expect(snapshot.domainOverride("www.shop.test", "shop.test")).toBe("allow");
    expect(snapshot.neverDisposable("ns", "ns.host.test")).toBe(true);
    await snapshot.reload();
    expect(snapshot.version).toBe(start + 1);

    overrides[0] = override("domain", "shop.test", "deny");
    await snapshot.reload();
    expect(snapshot.version).toBe(start + 2);
    expect(snapshot.domainOverride("shop.test", "shop.test")).toBe("deny");

    overrides.splice(1, 1);
    await snapshot.reload();
    expect(snapshot.version).toBe(start + 3);
    expect(snapshot.neverDisposable("ns", "ns.host.test")).toBe(false);

    overrides.splice(0, 1);
    await snapshot.reload();
    expect(snapshot.version).toBe(start + 4);
    expect(snapshot.domainOverride("shop.test", "shop.test")).toBeUndefined();
  });

  it("moves when a domain override's note changes (the domain's evidence names it), and keeps the notes", async () => {
    const overrides = [override("domain", "shop.test", "deny", "chargebacks")];
    const { snapshot } = snapshotOver(overrides);
    await snapshot.ready;
    const start = snapshot.version;
    expect(snapshot.overrideNote("domain", "shop.test")).toEqual({ action: "deny", note: "chargebacks" });
    overrides[0] = override("domain", "shop.test", "deny", "report rpt_x: chargebacks");
    await snapshot.reload();
    expect(snapshot.version).toBe(start + 1);
    expect(snapshot.overrideNote("domain", "shop.test")?.note).toBe("report rpt_x: chargebacks");
    await snapshot.reload();
    expect(snapshot.version).toBe(start + 1);
  });

  it("moves when infrastructure passes the thresholds, and when it no longer does", async () => {
    const infrastructure = [mxHost("mx.tempmail.test", 2)];
    const overrides: Override[] = [];
    const { snapshot } = snapshotOver(overrides, infrastructure);
    await snapshot.ready;
    const start = snapshot.version;
    expect(snapshot.disposableService("mx_host", "mx.tempmail.test")).toBeUndefined();

    infrastructure[0] = mxHost("mx.tempmail.test", 3, 0, 9); // 3 of 12: passes both thresholds
    await snapshot.reload();
    expect(snapshot.version).toBe(start + 1);
    expect(snapshot.disposableService("mx_host", "mx.tempmail.test")).toBe("tempmail.test");

    infrastructure[0] = mxHost("mx.tempmail.test", 4, 0, 9);
    await snapshot.reload();
    expect(snapshot.version).toBe(start + 1);

    infrastructure[0] = mxHost("mx.tempmail.test", 4, 0, 13); // 4 of 17: below a quarter
    await snapshot.reload();
    expect(snapshot.version).toBe(start + 2);
    expect(snapshot.size).toBe(0);

    infrastructure[0] = mxHost("mx.tempmail.test", 4);
    await snapshot.reload();
    expect(snapshot.version).toBe(start + 3);
    // The operator marks it never disposable: no longer learnt.
    overrides.push(override("mx_host", "mx.tempmail.test", "never_disposable"));
    await snapshot.reload();
    expect(snapshot.version).toBe(start + 4);
    expect(snapshot.disposableService("mx_host", "mx.tempmail.test")).toBeUndefined();
  });

  it("keeps the previous snapshot and version when a load fails", async () => {
    const overrides = [override("domain", "denied.test", "deny")];
    const { snapshot, errors, state } = snapshotOver(overrides, [mxHost("mx.tempmail.test", 5)]);
    await snapshot.ready;
    const before = snapshot.version;
    overrides.length = 0;
    state.failing = true;
    await snapshot.reload();
    expect(errors).toHaveLength(1);
    expect(snapshot.version).toBe(before);
    expect(snapshot.domainOverride("denied.test", "denied.test")).toBe("deny");
    expect(snapshot.disposableService("mx_host", "mx.tempmail.test")).toBe("tempmail.test");
    // The next load that succeeds takes the change.
    state.failing = false;
    await snapshot.reload();
    expect(snapshot.version).toBe(before + 1);
    expect(snapshot.domainOverride("denied.test", "denied.test")).toBeUndefined();
    expect(snapshot.disposableService("mx_host", "mx.tempmail.test")).toBe("tempmail.test");
  });

  it("counts a failed first load as loaded, with nothing learnt", async () => {
    const overrides = [override("domain", "denied.test", "deny")];
    const { snapshot, errors, state } = snapshotOver(overrides, [], true);
    await snapshot.ready;
    expect([snapshot.loaded, errors.length]).toEqual([true, 1]);
    expect(snapshot.domainOverride("denied.test", "denied.test")).toBeUndefined();
    const before = snapshot.version;
    state.failing = false;
    await snapshot.reload();
    expect(snapshot.version).toBe(before + 1);
  });

  it("reloads after a change of its own with a load that began after it, not the one running", async () => {
    const overrides: Override[] = [];
    let release: () => void = () => undefined;
    let held = false;
    let loads = 0;
    const snapshot = new LearnedSnapshot({
      store: {
        infrastructure: { listInfrastructure: async () => [] } as never,
        overrides: {
          listOverrides: async () => {
            loads += 1;
            const read = overrides.map((o) => ({ ...o }));
            if (held) await new Promise<void>((resolve) => (release = resolve));
            return read;
          },
        } as never,
      },
      clock: () => AT,
    });
    await snapshot.ready;
    const start = snapshot.version;
    held = true;
    const running = snapshot.reload(); // reads the store before the change, then waits
    held = false;
    overrides.push(override("domain", "denied.test", "deny"));
    const afterChange = snapshot.reloadAfterChange();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(loads).toBe(2); // the second load waits for the running one
    release();
    await afterChange;
    await running;
    expect(loads).toBe(3);
    expect(snapshot.domainOverride("denied.test", "denied.test")).toBe("deny");
    expect(snapshot.version).toBe(start + 1);
  });
});
