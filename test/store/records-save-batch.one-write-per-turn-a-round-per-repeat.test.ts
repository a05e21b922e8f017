/**
 * The look-ups' saves of one turn written together (src/store/records-save-batch.ts): one
 * write per turn, each round in domain order (one lock order for every instance), a
 * domain saved again in the turn in a later round, each save answered with its own row,
 * and every save of a turn failed when its write fails.
 */
import { describe, expect, it } from "vitest";
import { batchSaves, type WriteRounds } from "../../src/store/records-save-batch.js";

interface Row {
  domain: string;
  value: number;
}

/** Records every write; each domain written gets back its value times ten, but those in `skipped`. */
function recordingWriter(skipped: readonly string[] = []) {
  const writes: Row[][][] = [];
  const write: WriteRounds<Row, number> = async (rounds) => {
    writes.push(rounds.map((round) => [...round]));
    return rounds.map(
      (round) =>
        new Map(
          round.filter((row) => !skipped.includes(row.domain)).map((row) => [row.domain, row.value * 10]),
        ),
    );
  };
  return { writes, write };
}

describe("batchSaves", () => {
  it("writes the saves of one turn in one call, each answered with its own row", async () => {
    const { writes, write } = recordingWriter(["c.test"]);
    const save = batchSaves(write);
    const answers = await Promise.all([
      save({ domain: "a.test", value: 1 }),
      save({ domain: "b.test", value: 2 }),
      save({ domain: "c.test", value: 3 }),
    ]);
    expect(answers).toEqual([10, 20, undefined]);
    expect(writes).toEqual([
      [
        [
          { domain: "a.test", value: 1 },
          { domain: "b.test", value: 2 },
          { domain: "c.test", value: 3 },
        ],
      ],
    ]);
  });

  it("writes each round in domain order, whatever order the saves came in", async () => {
    const { writes, write } = recordingWriter();
    const save = batchSaves(write);
    const answers = await Promise.all(
      ["c.test", "a.test", "b.test", "c.test"].map((domain, i) => save({ domain, value: i })),
    );
    expect(answers).toEqual([0, 10, 20, 30]);
    expect(writes[0]?.map((round) => round.map((row) => row.domain))).toEqual([
      ["a.test", "b.test", "c.test"],
      ["c.test"],
    ]);
  });

  it("puts the n-th save of a domain in a turn in round n, and answers each from its round", async () => {
    const { writes, write } = recordingWriter();
    const save = batchSaves(write);
    const answers = await Promise.all([
      save({ domain: "a.test", value: 1 }),
      save({ domain: "a.test", value: 2 }),
      save({ domain: "b.test", value: 3 }),
      save({ domain: "a.test", value: 4 }),
    ]);
    expect(answers).toEqual([10, 20, 30, 40]);
    expect(writes[0]?.map((round) => round.map((row) => row.value))).toEqual([[1, 3], [2], [4]]);
  });

  it("starts a new write in the next turn", async () => {
    const { writes, write } = recordingWriter();
    const save = batchSaves(write);
    await save({ domain: "a.test", value: 1 });
    await save({ domain: "a.test", value: 2 });
    expect(writes).toHaveLength(2);
  });

  it("fails every save of a turn whose write fails, and not the next turn's", async () => {
    let fail = true;
    const save = batchSaves<Row, number>(async (rounds) => {
      if (fail) throw new Error("database unreachable");
      return rounds.map((round) => new Map(round.map((row) => [row.domain, row.value])));
    });
    const failed = await Promise.allSettled([
      save({ domain: "a.test", value: 1 }),
      save({ domain: "b.test", value: 2 }),
    ]);
    expect(failed.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    expect(await save({ domain: "a.test", value: 1 })).toBe(1);
  });
});
