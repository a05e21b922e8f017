/**
 * A loopback TCP proxy in front of PostgreSQL that cuts a connection at the worst moment
 * for a client: just after a statement it was told to watch for has committed, before
 * the client hears so. It reads the protocol's messages (a type byte and a length) on
 * both ways: once the client sent a Parse or Query whose text matches `pattern`, the
 * server's answers are held back until its ReadyForQuery, which PostgreSQL sends only
 * after the implicit transaction committed; then both sockets are destroyed and the held
 * answers dropped. The client sees "Connection terminated unexpectedly"; the database
 * holds the statement's work. Cuts a connection once per `cutAfter` call; `cutBefore`
 * cuts it instead of passing such a statement on (it never reaches the database). While
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

export async function startPostgresCutter(connectionString: string): Promise<PostgresCutter> {
  const target = new URL(connectionString);
  const sockets = new Set<Socket>();
  const waiting: { pattern: RegExp; before: boolean; cut: () => void }[] = [];
  let refusing = false;

  const server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const forget = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", forget).on("close", forget);
    upstream.on("error", forget).on("close", forget);
    // The watch this connection armed: the server's answers are held back since.
    let armed: { before: boolean; cut: () => void } | undefined;
    client.on(
      "data",
      messageReader(1, (type, body, bytes) => {
        const text = sqlOf(type, body);
        if (text !== undefined && armed === undefined) {
          const index = waiting.findIndex((watch) => watch.pattern.test(text));
          if (index >= 0) [armed] = waiting.splice(index, 1);
          if (armed?.before) {
            forget();
            armed.cut();
            return;
          }
        }
        upstream.write(bytes);
      }),
    );
    upstream.on(
      "data",
      messageReader(0, (type, _body, bytes) => {
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
    cutAfter: (pattern) => new Promise((cut) => waiting.push({ pattern, before: false, cut: () => cut() })),
    cutBefore: (pattern) => new Promise((cut) => waiting.push({ pattern, before: true, cut: () => cut() })),
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
