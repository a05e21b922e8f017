import { afterEach, describe, expect, it } from "vitest";
import { sampleRecord } from "../../../harness/sample-record.js";
import {
  keepPagesVia,
  type Observation,
  Observer,
  recentSink,
} from "../../../src/service/checking/batched-observer.js";

const AT = new Date("2026-01-10T12:00:00Z");

function observation(domain: string, seconds = 0): Observation {
  return {
    domain,
    at: new Date(AT.getTime() + seconds * 1000),
    cache: "miss",
    record: sampleRecord({ domain }),
  };
}

function recordingSink() {
  const batches: Observation[][] = [];
  return { batches, sink: async (batch: readonly Observation[]) => void batches.push([...batch]) };
}

describe("Observer", () => {
  let observer: Observer | undefined;
  afterEach(() => observer?.close());

  it("keeps a domain the pages checked on the recently checked list when an API check follows before the flush", async () => {
    const shown: string[] = [];
    const recent = {
      addRecent: async (rows: readonly { domain: string }[]) => void shown.push(...rows.map((r) => r.domain)),
    };
    observer = new Observer({
      sinks: [recentSink(recent, { fromApi: false })],
      flushMs: 60_000,
      merge: keepPagesVia,
    });
    observer.observe({ ...observation("seen-on-a-page.example", 1), via: "pages" });
    observer.observe({ ...observation("seen-on-a-page.example", 2), via: "api" });
    observer.observe({ ...observation("api-only.example", 3), via: "api" });
    observer.observe({ ...observation("api-only.example", 4), via: "api" });
    await observer.flush();
    expect(shown).toEqual(["seen-on-a-page.example"]);
  });

  it("writes nothing on the caller's turn and each domain once, with its latest observation", async () => {
    const { batches, sink } = recordingSink();
    observer = new Observer({ sinks: [sink], flushMs: 60_000 });
    observer.observe(observation("a.example", 1));
    observer.observe(observation("b.example", 2));
    observer.observe(observation("a.example", 3));
    expect(batches).toEqual([]);
    await observer.flush();
    expect(batches.map((batch) => batch.map((o) => [o.domain, o.at.getTime() - AT.getTime()]))).toEqual([
      [
        ["a.example", 3000],
        ["b.example", 2000],
      ],
    ]);
  });

  it("flushes on its own once a batch is full, and hands sinks at most a batch at a time", async () => {
    const { batches, sink } = recordingSink();
    observer = new Observer({ sinks: [sink], flushMs: 60_000, batchSize: 10 });
    for (let i = 0; i < 25; i++) observer.observe(observation(`d${i}.example`));
    await observer.flush();
    expect(batches.map((batch) => batch.length).reduce((a, b) => a + b)).toBe(25);
    expect(Math.max(...batches.map((batch) => batch.length))).toBeLessThanOrEqual(10);
  });

  it("keeps at most maxWaiting domains while the sinks fail, counts what it drops, and goes on", async () => {
    const errors: unknown[] = [];
    let failing = true;
    const { batches, sink } = recordingSink();
    observer = new Observer({
      sinks: [async (batch) => (failing ? Promise.reject(new Error("database down")) : sink(batch))],
      flushMs: 60_000,
      batchSize: 1_000,
      maxWaiting: 100,
      onSinkError: (error) => errors.push(error),
    });
    for (let i = 0; i < 150; i++) observer.observe(observation(`d${i}.example`));
    expect(observer.dropped).toBe(50);
    await observer.flush();
    expect(errors).toHaveLength(1);
    failing = false;
    observer.observe(observation("after.example"));
    await observer.close();
    expect(batches.flat().map((o) => o.domain)).toEqual(["after.example"]);
  });

  it("flushes every flushMs without being asked", async () => {
    const { batches, sink } = recordingSink();
    observer = new Observer({ sinks: [sink], flushMs: 20 });
    observer.observe(observation("a.example"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(batches.flat().map((o) => o.domain)).toEqual(["a.example"]);
  });
});
