/**
 * Connection caps and bodies over the limit, over real sockets to the server as
 * `startServer` runs it (docs/security.md, "Connections and slow clients"): a
 * connection over MAX_CONNECTIONS_PER_CLIENT or MAX_CONNECTIONS is closed at once while
 * the others are served, and a body over the limit, declared or streamed, on a GET or a
 * POST, ends with the answer and a closed connection instead of being read to its end.
 * The times ("at once": within 1 s; a huge body cut within 5 s) are bounds for a quiet
 * machine, stretched by the machine's pace (harness/machine-pace.ts).
 */
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { type Pace, startPace } from "../../harness/machine-pace.js";
import { mailZones } from "../../harness/mail-zones.js";
import { loadConfig } from "../../src/config.js";
import { type RunningServer, startServer } from "../../src/server.js";
import { CANARY_DOMAINS } from "../../src/service/checking/create-checker.js";

let dns: DnsTestServer;
let dir: string;
let server: RunningServer;
let port: number;
let secret: string;

beforeAll(async () => {
  dns = await startDnsServer(mailZones([...CANARY_DOMAINS], "own-server"));
  dir = await mkdtemp(join(tmpdir(), "mailrisk-connections-"));
  const stdout = new PassThrough();
  let printed = "";
  stdout.on("data", (chunk) => {
    printed += chunk;
  });
  server = await startServer(
    loadConfig({
      TEST_NAMES: "on",
      DATABASE_URL: `sqlite:${join(dir, "connections.db")}`,
      PORT: "0",
      DNS_SERVERS: dns.address,
      AGE_LOOKUP: "off",
      MAX_CONNECTIONS: "4",
      MAX_CONNECTIONS_PER_CLIENT: "2",
      METRICS_PUBLIC: "on",
    }),
    { stdout, logger: pino({ level: "silent" }) },
  );
  port = Number(new URL(server.url).port);
  secret = /mr_\w+/.exec(printed)?.[0] as string;
});
afterAll(async () => {
  await server.close();
  await dns.close();
  await rm(dir, { recursive: true, force: true });
});

/** A connected socket from `address`, collecting what it receives. */
async function openFrom(address: string): Promise<Socket & { received: () => string }> {
  const socket = connect({ host: "127.0.0.1", port, localAddress: address });
  let received = "";
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => {
    received += chunk;
  });
  socket.on("error", () => {});
  await once(socket, "connect");
  return Object.assign(socket, { received: () => received });
}

/** Whether the server closes `socket` within `ms`. */
async function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  if (socket.closed) return true;
  const timer = new Promise<false>((resolve) => setTimeout(() => resolve(false), ms));
  return Promise.race([firstOf(socket, ["close"]).then(() => true), timer]);
}

/** One request written on `socket`, and the answer's head once it came (or what came within 1 s, paced). */
async function healthzOn(socket: Socket & { received: () => string }, pace: Pace): Promise<string> {
  socket.write("GET /healthz HTTP/1.1\r\nHost: mailrisk\r\n\r\n");
  const deadline = performance.now() + pace.bound(1000);
  while (!socket.received().includes("\r\n\r\n") && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return socket.received();
}

/** Until the server holds `count` connections: it has seen the others close. */
async function untilServerHolds(count: number): Promise<void> {
  const held = () =>
    new Promise<number>((resolve, reject) =>
      server.app.server.getConnections((error, n) => (error ? reject(error) : resolve(n))),
    );
  while ((await held()) !== count) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("the connection caps", () => {
  it("close a connection over either cap at once and keep serving the others", async () => {
    const pace = startPace();
    const first = [await openFrom("127.0.0.2"), await openFrom("127.0.0.2")];
    const thirdFromTheSameAddress = await openFrom("127.0.0.2");
    expect(await closedWithin(thirdFromTheSameAddress, pace.bound(1000))).toBe(true);
    expect(thirdFromTheSameAddress.received()).toBe("");

    const others = [await openFrom("127.0.0.3"), await openFrom("127.0.0.3")];
    const fifth = await openFrom("127.0.0.4");
    expect(await closedWithin(fifth, pace.bound(1000))).toBe(true);

    // The four kept are served, and stay open (keep-alive).
    for (const socket of [...first, ...others]) {
      expect(await healthzOn(socket, pace)).toMatch(/^HTTP\/1\.1 200 /);
      expect(await closedWithin(socket, 50)).toBe(false);
    }
    // A closed connection frees its place.
    first[0]?.destroy();
    await untilServerHolds(3);
    const again = await openFrom("127.0.0.4");
    expect(await healthzOn(again, pace)).toMatch(/^HTTP\/1\.1 200 /);

    for (const socket of [...first, ...others, again]) socket.destroy();
    await untilServerHolds(0);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/^mailrisk_connections_refused_total\{limit="per_client"\} 1$/m);
    expect(metrics).toMatch(/^mailrisk_connections_refused_total\{limit="overall"\} 1$/m);
  });
});

const MiB = 1024 * 1024;
/** What a client tries to send: far more than anyone should read. */
const HUGE = 2048 * MiB;
/** What it may get out before the server closes: the socket buffers on both sides (4 MiB measured on loopback), and a little. */
const SENT_AT_MOST = 16 * MiB;

/** Resolves on the first of `events` (an 'error' before them is no rejection: a 'close' follows it). */
function firstOf(socket: Socket, events: string[]): Promise<void> {
  return new Promise((resolve) => {
    for (const event of events) socket.once(event, () => resolve());
  });
}

/**
 * Writes `head`, then `HUGE` bytes of body as fast as the server takes them (chunked
 * when asked), until the server closes the connection: what was sent and answered.
 */
async function sendHugeBody(head: string, chunked: boolean): Promise<{ sent: number; answer: string }> {
  const socket = connect({ host: "127.0.0.1", port });
  let answer = "";
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => {
    answer += chunk;
  });
  socket.on("error", () => {});
  let closed = false;
  socket.on("close", () => {
    closed = true;
  });
  await once(socket, "connect");
  socket.write(head);
  const data = Buffer.alloc(MiB, "a");
  const piece = chunked
    ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from("\r\n")])
    : data;
  let sent = 0;
  while (sent < HUGE && !closed) {
    sent += data.length;
    if (!socket.write(piece)) await firstOf(socket, ["drain", "close"]);
  }
  if (!closed) await firstOf(socket, ["close"]);
  return { sent, answer };
}

describe("a body over the limit", () => {
  it.each([
    // A GET's body is ignored, whatever its size: answered, then closed rather than read.
    [
      "a GET declaring 4 GiB",
      "GET /healthz HTTP/1.1\r\nHost: m\r\nContent-Length: 4294967296\r\n\r\n",
      false,
      200,
    ],
    [
      "a GET with a chunked body",
      "GET /healthz HTTP/1.1\r\nHost: m\r\nTransfer-Encoding: chunked\r\n\r\n",
      true,
      200,
    ],
    [
      "a POST /v2/ declaring 4 GiB",
      "POST /v2/ HTTP/1.1\r\nHost: m\r\nContent-Type: application/json\r\nAuthorization: Bearer KEY\r\nContent-Length: 4294967296\r\n\r\n",
      false,
      413,
    ],
    [
      "a POST /v2/ streaming a chunked body",
      "POST /v2/ HTTP/1.1\r\nHost: m\r\nContent-Type: application/json\r\nAuthorization: Bearer KEY\r\nTransfer-Encoding: chunked\r\n\r\n",
      true,
      413,
    ],
    [
      "a 404 with a chunked body",
      "PUT /nowhere HTTP/1.1\r\nHost: m\r\nTransfer-Encoding: chunked\r\n\r\n",
      true,
      404,
    ],
  ])(
    "%s: answered, then the connection closes long before the body's end",
    async (_name, head, chunked, status) => {
      const pace = startPace();
      const started = performance.now();
      const { sent, answer } = await sendHugeBody(head.replace("KEY", secret), chunked);
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(answer.toLowerCase()).toContain("connection: close");
      expect(sent).toBeLessThan(SENT_AT_MOST);
      expect(performance.now() - started).toBeLessThan(pace.bound(5000));
    },
  );

  it("leaves a request without a body on its kept-alive connection", async () => {
    const socket = await openFrom("127.0.0.5");
    const answer = await healthzOn(socket, startPace());
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer.toLowerCase()).toContain("connection: keep-alive");
    socket.destroy();
  });
});
