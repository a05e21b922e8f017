/**
 * The primary's relay of admin changes (src/cluster-changes.ts) on a fake worker hub
 * (unit): a change goes to every other listening worker, and its announcer hears back
 * once all of them applied it, or exited, or SPREAD_TIMEOUT_MS passed. A worker that is
 * not listening yet, or is disconnected, is not waited for. (The normal path through a
 * real cluster: test/cluster.admin-changes-*.)
 */
import { EventEmitter } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  CHANGE_MESSAGES,
  relayMemoryChanges,
  SPREAD_TIMEOUT_MS,
  type WorkerHub,
} from "../src/cluster-changes.js";

interface FakeWorker {
  id: number;
  connected: boolean;
  sent: { type: string; id: number; change?: unknown }[];
  isConnected(): boolean;
  send(message: { type: string; id: number }): boolean;
}

function fakeWorker(id: number): FakeWorker {
  const worker: FakeWorker = {
    id,
    connected: true,
    sent: [],
    isConnected: () => worker.connected,
    send(message) {
      worker.sent.push(message);
      return true;
    },
  };
  return worker;
}

const CHANGE = { kind: "overrides" } as const;

let hub: EventEmitter & { workers: Record<number, FakeWorker> };
let workers: FakeWorker[];

beforeEach(() => {
  workers = [1, 2, 3].map(fakeWorker);
  hub = Object.assign(new EventEmitter(), { workers: Object.fromEntries(workers.map((w) => [w.id, w])) });
  relayMemoryChanges(hub as unknown as WorkerHub);
});
afterEach(() => vi.useRealTimers());

const first = () => workers[0] as FakeWorker;
const second = () => workers[1] as FakeWorker;
const third = () => workers[2] as FakeWorker;
const listen = (...listening: FakeWorker[]) => {
  for (const worker of listening) hub.emit("listening", worker, {});
};
const announce = (worker: FakeWorker, id: number) =>
  hub.emit("message", worker, { type: CHANGE_MESSAGES.announced, id, change: CHANGE });
/** The relay's id of the change as handed to `worker`. */
const handedId = (worker: FakeWorker) => {
  const apply = worker.sent.find((message) => message.type === CHANGE_MESSAGES.apply);
  if (!apply) throw new Error(`worker ${worker.id} was handed nothing`);
  return apply.id;
};
const applied = (worker: FakeWorker) =>
  hub.emit("message", worker, { type: CHANGE_MESSAGES.applied, id: handedId(worker) });
const spread = (worker: FakeWorker) =>
  worker.sent.filter((message) => message.type === CHANGE_MESSAGES.spread);

describe("the primary's relay of admin changes", () => {
  it("hands the change to every other listening worker and answers once all applied it", () => {
    listen(first(), second(), third());
    announce(first(), 7);
    expect(second().sent).toEqual([{ type: CHANGE_MESSAGES.apply, id: expect.any(Number), change: CHANGE }]);
    expect(third().sent).toHaveLength(1);
    expect(first().sent).toEqual([]);
    applied(second());
    expect(spread(first())).toEqual([]);
    applied(third());
    expect(spread(first())).toEqual([{ type: CHANGE_MESSAGES.spread, id: 7 }]);
  });

  it("counts a worker that exits as done, and skips one not listening or disconnected", () => {
    listen(first(), second(), third());
    third().connected = false;
    const late = fakeWorker(4);
    hub.workers[4] = late;
    announce(first(), 1);
    expect([third().sent, late.sent]).toEqual([[], []]);
    hub.emit("exit", second(), 1, null);
    expect(spread(first())).toEqual([{ type: CHANGE_MESSAGES.spread, id: 1 }]);
  });

  it("answers after SPREAD_TIMEOUT_MS when a worker never applies it", () => {
    vi.useFakeTimers();
    listen(first(), second(), third());
    announce(second(), 3);
    applied(first());
    vi.advanceTimersByTime(SPREAD_TIMEOUT_MS - 1);
    expect(spread(second())).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(spread(second())).toEqual([{ type: CHANGE_MESSAGES.spread, id: 3 }]);
    // A late answer changes nothing.
    applied(third());
    expect(spread(second())).toHaveLength(1);
  });

  it("answers at once when the announcer is the only listening worker", () => {
    listen(first());
    announce(first(), 9);
    expect(spread(first())).toEqual([{ type: CHANGE_MESSAGES.spread, id: 9 }]);
  });
});
