/**
 * Infrastructure evidence and overrides on both databases: evidence is upserted in batches
 * (larger than one statement's chunk; two instances' batches of the same rows at once
 * without a deadlock), counted per piece of infrastructure by distinct
 * domain and listed status, names the listed domain seen most often, and stays quick with
 * tens of thousands of domains (under 2 s on a quiet machine, a bound stretched by the
 * machine's pace: harness/machine-pace.ts).
 */
import { afterEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS, openTestStore, type TestStore } from "../../harness/databases.js";
import { startPace } from "../../harness/machine-pace.js";
import type { Evidence } from "../../src/core/learned.js";

const AT = new Date("2025-06-01T00:00:00Z");

function evidence(
  domain: string,
  listed: Evidence["listed"],
  mx: string,
  ns = "ns1.registrar.example",
): Evidence {
  return {
    domain,
    mxHosts: [mx],
    mxIps: [`ip-of-${mx}`],
    nameServers: [ns],
    listed,
    service: listed === "disposable" ? domain : null,
  };
}

describe.each(DATABASE_KINDS)("%s", (kind) => {
  let test: TestStore;
  afterEach(() => test?.cleanup());

  it("counts distinct domains by listed status and names the most seen listed domain", async () => {
    test = await openTestStore(kind);
    const { store } = test;
    const entries = [
      ...["a.example", "b.example", "c.example"].map((d) => evidence(d, "disposable", "mx.temp.example")),
      evidence("d.example", "unknown", "mx.temp.example"),
      evidence("e.example", "good", "mx.shared.example"),
      evidence("f.example", "disposable", "mx.shared.example"),
    ].map((e) => ({ evidence: e, seenAt: AT }));
    await store.infrastructure.recordEvidence(entries);
    await store.infrastructure.recordEvidence([
      { evidence: evidence("b.example", "disposable", "mx.temp.example"), seenAt: AT },
    ]);
    const learnt = await store.infrastructure.listInfrastructure(1);
    expect(learnt.find((s) => s.kind === "mx_host" && s.value === "mx.temp.example")).toMatchObject({
      disposable: 3,
      good: 0,
      unknown: 1,
      service: "b.example",
    });
    expect(learnt.find((s) => s.value === "mx.shared.example")).toMatchObject({ disposable: 1, good: 1 });
    expect((await store.infrastructure.listInfrastructure(3)).map((s) => `${s.kind} ${s.value}`)).toEqual([
      "mx_host mx.temp.example",
      "mx_ip ip-of-mx.temp.example",
      "ns ns1.registrar.example",
    ]);
    expect(await store.infrastructure.domainsOn("mx_host", "mx.shared.example", 10)).toEqual([
      "e.example",
      "f.example",
    ]);
  });

  // PostgreSQL locks rows; SQLite the whole database for one writer at a time (no
  // deadlock), and two of its connections in one thread, as here, would wait on each other
  // in a synchronous busy wait that instances in processes of their own never meet.
  it.runIf(kind === "postgres")(
    "takes the same evidence from two instances at once, in opposite orders, without a deadlock",
    async () => {
      test = await openTestStore(kind);
      const other = await test.openAnother();
      const entries = Array.from({ length: 40 }, (_, i) => ({
        evidence: evidence(`both-${i}.example`, "unknown", `mx${i % 3}.shared.example`),
        seenAt: AT,
      }));
      for (let round = 0; round < 3; round++) {
        await Promise.all([
          test.store.infrastructure.recordEvidence(entries),
          other.infrastructure.recordEvidence([...entries].reverse()),
        ]);
      }
      expect(await test.store.infrastructure.domainsOn("ns", "ns1.registrar.example", 100)).toHaveLength(40);
    },
  );

  it("writes 30,000 domains in batches and answers the learning query quickly", async () => {
    test = await openTestStore(kind);
    const { store } = test;
    const entries = Array.from({ length: 30_000 }, (_, i) => ({
      evidence: evidence(
        `d${i}.example`,
        i % 10 === 0 ? "disposable" : "unknown",
        `mx${i % 300}.host.example`,
      ),
      seenAt: AT,
    }));
    for (let start = 0; start < entries.length; start += 500) {
      await store.infrastructure.recordEvidence(entries.slice(start, start + 500));
    }
    const pace = startPace();
    const started = performance.now();
    const learnt = await store.infrastructure.listInfrastructure(3);
    const ms = performance.now() - started;
    expect(learnt.filter((s) => s.kind === "mx_host")).toHaveLength(30);
    expect(ms).toBeLessThan(pace.bound(2000));
  }, 120_000);

  it("keeps one override per kind and value", async () => {
    test = await openTestStore(kind);
    const { overrides } = test.store;
    await overrides.setOverride({
      kind: "domain",
      value: "x.example",
      action: "allow",
      note: null,
      createdAt: AT,
    });
    await overrides.setOverride({
      kind: "domain",
      value: "x.example",
      action: "deny",
      note: "n",
      createdAt: AT,
    });
    expect(await overrides.listOverrides()).toEqual([
      { kind: "domain", value: "x.example", action: "deny", note: "n", createdAt: AT },
    ]);
    expect(await overrides.removeOverride("domain", "x.example")).toBe(true);
    expect(await overrides.removeOverride("domain", "x.example")).toBe(false);
  });
});
