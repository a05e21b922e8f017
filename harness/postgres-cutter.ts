/**
 * A loopback TCP proxy in front of PostgreSQL that cuts a connection at the worst moment
 * for a client: just after a statement it was told to watch for has committed, before
 * the client hears so. It reads the protocol's messages (a type byte and a length) on
 * both ways: once the client sent a Parse or Query whose text matches `pattern`, the
 * server's answers are held back until its ReadyForQuery, which PostgreSQL sends only
 * after the implicit transaction committed; then both sockets are destroyed and the held
 * answers dropped. The client sees "Connection terminated unexpectedly"; the database
 * holds the statement's work. Cuts a connection once per `cutAfter` call; `cutBefore`
 * cuts it instead of passing such a statement on (it never reaches the database);
 * `holdBack` cuts the client off the same way but keeps the statement, to send it to the
 * database later on the same server connection (a statement that lands after its client
 * gave up). While
 * `refuse(true)`, a new connection is closed as soon as it is made (the database
 * unreachable for a while).
 */
import { once } from "node:events";
import { connect, createServer, type Socket } from "node:net";

export interface PostgresCutter {
  /** A connection string to the same database through the proxy. */
  connectionString: string;
  /** Cuts the next connection that commits a statement whose SQL matches `pattern`; resolves once cut. */
  cutAfter(pattern: RegExp): Promise<void>;
  /** Cuts the next connection that sends a statement whose SQL matches `pattern`, before the database sees it. */
  cutBefore(pattern: RegExp): Promise<void>;
  /**
   * Cuts the client of the next connection that sends a statement matching `pattern`,
   * and holds the statement back; `send()` sends it to the database then, and says
   * whether it failed there (an ErrorResponse before its ReadyForQuery).
   */
  holdBack(pattern: RegExp): Promise<{ send(): Promise<"done" | "failed"> }>;
  /** Whether new connections are closed at once from now on. */
  refuse(refusing: boolean): void;
  close(): Promise<void>;
}

/** Frontend message types whose body starts with SQL text: Parse (after the statement's name) and Query. */
function sqlOf(type: number, body: Buffer): string | undefined {
  if (type === 0x51) return body.toString("utf8", 0, Math.max(0, body.length - 1));
  if (type !== 0x50) return undefined;
  const nameEnd = body.indexOf(0);
  const textEnd = body.indexOf(0, nameEnd + 1);
  return nameEnd < 0 || textEnd < 0 ? undefined : body.toString("utf8", nameEnd + 1, textEnd);
}

/**
 * Splits a stream of typed messages: calls `message` with each whole message's type, body
 * and bytes. The first `untyped` messages carry no type byte (the startup message).
 */
function messageReader(untyped: number, message: (type: number, body: Buffer, bytes: Buffer) => void) {
  let pending: Buffer = Buffer.alloc(0);
  let startup = untyped;
  return (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const head = startup > 0 ? 0 : 1;
      if (pending.length < head + 4) return;
      const length = pending.readUInt32BE(head);
      if (pending.length < head + length) return;
      const bytes = pending.subarray(0, head + length);
      message(head === 0 ? 0 : (pending[0] as number), pending.subarray(head + 4, head + length), bytes);
      pending = pending.subarray(head + length);
      if (startup > 0) startup--;
    }
  };
}

/** A statement held back: its messages, whether the database refused it, and the waiter of its answer once sent. */
interface Held {
  bytes: Buffer[];
  failed: boolean;
  answered?: (outcome: "done" | "failed") => void;
}

export async function startPostgresCutter(connectionString: string): Promise<PostgresCutter> {
  const target = new URL(connectionString);
  const sockets = new Set<Socket>();
  type Send = () => Promise<"done" | "failed">;
  const waiting: { pattern: RegExp; mode: "after" | "before" | "hold"; cut: (send?: Send) => void }[] = [];
  let refusing = false;

  const server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    // A statement held back (`holdBack`).
    let held: Held | undefined;
    const forget = () => {
      client.destroy();
      sockets.delete(client);
      if (held === undefined) {
        upstream.destroy();
        sockets.delete(upstream);
      }
    };
    client.on("error", forget).on("close", forget);
    upstream.on("error", forget).on("close", forget);
    // The watch this connection armed: the server's answers are held back since.
    let armed: (typeof waiting)[number] | undefined;
    client.on(
      "data",
      messageReader(1, (type, body, bytes) => {
        if (held !== undefined) {
          held.bytes.push(bytes);
          return;
        }
        const text = sqlOf(type, body);
        if (text !== undefined && armed === undefined) {
          const index = waiting.findIndex((watch) => watch.pattern.test(text));
          if (index >= 0) [armed] = waiting.splice(index, 1);
          if (armed?.mode === "before") {
            forget();
            armed.cut();
            return;
          }
          if (armed?.mode === "hold") {
            const holding: Held = { bytes: [bytes], failed: false };
            held = holding;
            forget();
            const { cut } = armed;
            // The rest of the statement's messages came in the same chunk: collected by then.
            setImmediate(() =>
              cut(
                () =>
                  new Promise((answered) => {
                    holding.answered = answered;
                    upstream.write(Buffer.concat(holding.bytes));
                  }),
              ),
            );
            return;
          }
        }
        upstream.write(bytes);
      }),
    );
    upstream.on(
      "data",
      messageReader(0, (type, _body, bytes) => {
        if (held !== undefined) {
          // ErrorResponse, then ReadyForQuery: the held statement's outcome.
          if (type === 0x45) held.failed = true;
          if (type === 0x5a && held.answered) {
            held.answered(held.failed ? "failed" : "done");
            upstream.destroy();
            sockets.delete(upstream);
          }
          return;
        }
        if (armed === undefined) {
          client.write(bytes);
          return;
        }
        // ReadyForQuery: the statement's transaction is over (committed, unless an error came first).
        if (type === 0x5a) {
          forget();
          armed.cut();
        }
      }),
    );
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  const through = new URL(connectionString);
  through.hostname = "127.0.0.1";
  through.port = String(port);
  return {
    connectionString: through.toString(),
    cutAfter: (pattern) => new Promise((cut) => waiting.push({ pattern, mode: "after", cut: () => cut() })),
    cutBefore: (pattern) => new Promise((cut) => waiting.push({ pattern, mode: "before", cut: () => cut() })),
    holdBack: (pattern) =>
      new Promise((held) =>
        waiting.push({ pattern, mode: "hold", cut: (send) => held({ send: send as Send }) }),
      ),
    refuse: (on) => {
      refusing = on;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, "close");
    },
  };
}
