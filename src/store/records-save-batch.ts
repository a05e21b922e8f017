/**
 * The look-ups' saves that arrive in the same turn of the event loop, written together:
 * one transaction of multi-row upserts (row-statements.ts) instead of one commit per domain, which
 * under a stream of unseen domains was the largest cost of a check that the database
 * adds (docs/benchmarks.md, "The cold path"). Each save still gets its own row back; the
 * wait is one `setImmediate`. A domain saved twice in one turn is written in a later
 * round of the same transaction, in order (PostgreSQL refuses an upsert that touches a
 * row twice). Each round is written in domain order, so that concurrent transactions of
 * several instances take their row locks in one order and never deadlock. When the
 * writing fails, every save of the turn fails with its error.
 */
import { perTurn } from "./per-turn.js";
import { lockOrder } from "./row-statements.js";

/** One save: its domain, and whatever else its statement takes. */
export interface SaveRow {
  domain: string;
}

/**
 * Writes the rounds in order in one transaction; for each round, the row the store gave
 * back for each domain it wrote (a domain missing was left as it was).
 */
export type WriteRounds<Row extends SaveRow, Saved> = (
  rounds: readonly (readonly Row[])[],
) => Promise<ReadonlyMap<string, Saved>[]>;

interface Waiting<Row, Saved> {
  row: Row;
  saved(answer: Saved | undefined): void;
  failed(error: unknown): void;
}

/** A save function that batches the calls of one turn; it resolves to the row given back, or undefined. */
export function batchSaves<Row extends SaveRow, Saved>(
  writeRounds: WriteRounds<Row, Saved>,
): (row: Row) => Promise<Saved | undefined> {
  const write = async (turn: Waiting<Row, Saved>[]) => {
    // The n-th save of a domain in this turn goes to round n.
    const seen = new Map<string, number>();
    const rounds: Row[][] = [];
    const roundOf = turn.map(({ row }) => {
      const round = seen.get(row.domain) ?? 0;
      seen.set(row.domain, round + 1);
      if (round === rounds.length) rounds.push([row]);
      else rounds[round]?.push(row);
      return round;
    });
    // Every instance's transactions then lock their rows in one order: none waits in a
    // circle for another (PostgreSQL would abort one as a deadlock).
    for (const round of rounds) round.sort((a, b) => lockOrder(a.domain, b.domain));
    let written: ReadonlyMap<string, Saved>[];
    try {
      written = await writeRounds(rounds);
    } catch (error) {
      for (const save of turn) save.failed(error);
      return;
    }
    turn.forEach((save, index) => {
      save.saved(written[roundOf[index] as number]?.get(save.row.domain));
    });
  };

  const add = perTurn<Waiting<Row, Saved>>((turn) => void write(turn));
  return (row) => new Promise<Saved | undefined>((saved, failed) => add({ row, saved, failed }));
}
