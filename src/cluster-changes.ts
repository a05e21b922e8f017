/**
 * The operator's changes across the workers of `serve --workers N` (memory-changes.ts):
 * the worker whose admin API took a change applies it, sends it to the primary, and the
 * primary hands it to every other worker that listens. The admin answer waits until
 * every one of them has applied it (or exited), at most SPREAD_TIMEOUT_MS; a worker
 * that misses it still takes it within 30 s, as another server sharing the database does.
 */
import cluster, { type Worker } from "node:cluster";
import type { AnnounceChange, MemoryChange } from "./service/memory-changes.js";

/** The messages between the workers and the primary. */
export const CHANGE_MESSAGES = {
  /** Worker → primary: a change made here, to hand to the others. */
  announced: "mailrisk:change-announced",
  /** Primary → worker: a sibling's change to apply. */
  apply: "mailrisk:change-apply",
  /** Worker → primary: applied. */
  applied: "mailrisk:change-applied",
  /** Primary → the announcing worker: every other worker applied it (or exited, or the time ran out). */
  spread: "mailrisk:change-spread",
} as const;
const { announced: ANNOUNCED, apply: APPLY, applied: APPLIED, spread: SPREAD } = CHANGE_MESSAGES;

/** How long an admin answer waits for the other workers. */
export const SPREAD_TIMEOUT_MS = 5_000;

type ChangeMessageType = (typeof CHANGE_MESSAGES)[keyof typeof CHANGE_MESSAGES];
const CHANGE_MESSAGE_TYPES: ReadonlySet<unknown> = new Set(Object.values(CHANGE_MESSAGES));

interface ChangeMessage {
  type: ChangeMessageType;
  id: number;
  change?: MemoryChange;
}

function isChangeMessage(message: unknown): message is ChangeMessage {
  return CHANGE_MESSAGE_TYPES.has((message as Partial<ChangeMessage> | null)?.type);
}

/**
 * In a worker: applies the changes the primary hands over, and returns how a change made
 * here is applied here and then in every other worker.
 */
export function shareMemoryChanges(apply: (change: MemoryChange) => Promise<void>): AnnounceChange {
  let nextId = 0;
  const waiting = new Map<number, () => void>();
  process.on("message", (message) => {
    if (!isChangeMessage(message)) return;
    if (message.type === APPLY && message.change) {
      void apply(message.change).then(() => process.send?.({ type: APPLIED, id: message.id }));
    } else if (message.type === SPREAD) {
      waiting.get(message.id)?.();
    }
  });
  return async (change) => {
    await apply(change);
    const send = process.send?.bind(process);
    if (!send || !process.connected) return;
    const id = nextId++;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve();
      };
      const timer = setTimeout(done, SPREAD_TIMEOUT_MS);
      waiting.set(id, done);
      send({ type: ANNOUNCED, id, change } satisfies ChangeMessage);
    });
  };
}

interface Spreading {
  origin: Worker;
  originId: number;
  /** Workers that have not applied it yet. */
  left: Set<number>;
  timer: NodeJS.Timeout;
}

/** The part of `node:cluster` the relay uses (a fake in the unit test). */
export type WorkerHub = Pick<typeof cluster, "on" | "workers">;

/** In the primary: hands each worker's change to the other listening workers and tells it when they applied it. */
export function relayMemoryChanges(hub: WorkerHub = cluster): void {
  const listening = new Set<number>();
  const spreading = new Map<number, Spreading>();
  let nextId = 0;

  const settle = (id: number, force = false) => {
    const entry = spreading.get(id);
    if (!entry || (entry.left.size > 0 && !force)) return;
    clearTimeout(entry.timer);
    spreading.delete(id);
    if (entry.origin.isConnected())
      entry.origin.send({ type: SPREAD, id: entry.originId } satisfies ChangeMessage);
  };

  hub.on("listening", (worker) => listening.add(worker.id));
  hub.on("exit", (worker) => {
    listening.delete(worker.id);
    for (const [id, entry] of spreading) {
      entry.left.delete(worker.id);
      settle(id);
    }
  });
  hub.on("message", (worker, message: unknown) => {
    if (!isChangeMessage(message)) return;
    if (message.type === APPLIED) {
      spreading.get(message.id)?.left.delete(worker.id);
      settle(message.id);
      return;
    }
    if (message.type !== ANNOUNCED || !message.change) return;
    const id = nextId++;
    const others = Object.values(hub.workers ?? {}).filter(
      (other): other is Worker =>
        other !== undefined && other.id !== worker.id && listening.has(other.id) && other.isConnected(),
    );
    spreading.set(id, {
      origin: worker,
      originId: message.id,
      left: new Set(others.map((other) => other.id)),
      timer: setTimeout(() => settle(id, true), SPREAD_TIMEOUT_MS).unref(),
    });
    for (const other of others)
      other.send({ type: APPLY, id, change: message.change } satisfies ChangeMessage);
    settle(id);
  });
}
