/**
 * An authoritative DNS server on loopback for integration tests and benchmarks: UDP and
 * TCP on the same port (asked from the OS), answering from a `Zones` fixture. NXDOMAIN
 * and NODATA carry the zone's SOA; a UDP answer larger than the client's buffer (512
 * bytes, or its EDNS size) is truncated so the client retries over TCP. Faults on demand
 * (zones.ts `behaviour`): silence, SERVFAIL, REFUSED, garbage, a truncation TCP never
 * completes. Every query is
 * logged so tests can count them. Nothing here ever talks to a public address.
 */
import { randomBytes, randomInt } from "node:crypto";
import { createSocket, type RemoteInfo, type Socket as UdpSocket } from "node:dgram";
import { once } from "node:events";
import { createServer, type Socket } from "node:net";
import dnsPacket from "dns-packet";
import { QueryLog, type Transport } from "./query-log.js";
import type { RecordSets, RecordType, Resolution, Zones } from "./zones.js";

const UDP_RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;

export interface DnsTestServer {
  /** `127.0.0.1:<port>`, the form `DNS_SERVERS` and NodeDnsResolver take. */
  readonly address: string;
  readonly port: number;
  /** Every query received, counted per name, type and transport. */
  readonly queries: QueryLog;
  close(): Promise<void>;
}

const HOST = "127.0.0.1";
const TTL = 300;
/** Response code per resolution (`drop` sends nothing; `garbage` and `truncated` are written by `faultyAnswer`). */
const RCODES: Readonly<Record<Exclude<Resolution["kind"], "drop" | "garbage" | "truncated">, number>> = {
  answer: 0,
  nodata: 0,
  nxdomain: 3,
  servfail: 2,
  refused: 5,
};
const UDP_DEFAULT_SIZE = 512;
/** The EDNS buffer size this server announces. */
const EDNS_SIZE = 1232;

function soa(zone: string): dnsPacket.Answer {
  const origin = zone === "" ? "" : `.${zone}`;
  return {
    type: "SOA",
    name: zone,
    ttl: TTL,
    class: "IN",
    data: {
      mname: `ns1${origin}`,
      rname: `hostmaster${origin}`,
      serial: 1,
      refresh: 3600,
      retry: 600,
      expire: 86_400,
      minimum: 60,
    },
  };
}

function answerRecords(name: string, type: string, values: RecordSets[RecordType]): dnsPacket.Answer[] {
  return values.map(
    (value): dnsPacket.Answer =>
      typeof value === "object"
        ? {
            type: "MX",
            name,
            ttl: TTL,
            class: "IN",
            data: { preference: value.priority, exchange: value.exchange },
          }
        : { type: type as "A" | "AAAA" | "NS", name, ttl: TTL, class: "IN", data: value },
  );
}

function ednsOf(query: dnsPacket.DecodedPacket): dnsPacket.OptAnswer | undefined {
  return query.additionals?.find((record): record is dnsPacket.OptAnswer => record.type === "OPT");
}

/** The response packet for a query, or null when the fixture says to stay silent. */
function respond(
  zones: Zones,
  query: dnsPacket.DecodedPacket,
  question: dnsPacket.Question,
): dnsPacket.Packet | null {
  const resolution = zones.resolve(question.name, question.type);
  if (resolution.kind === "drop" || resolution.kind === "garbage" || resolution.kind === "truncated")
    return null;
  const authoritative = resolution.kind === "refused" ? 0 : dnsPacket.AUTHORITATIVE_ANSWER;
  return {
    type: "response",
    id: query.id,
    flags: authoritative | ((query.flags ?? 0) & dnsPacket.RECURSION_DESIRED) | RCODES[resolution.kind],
    questions: [question],
    answers:
      resolution.kind === "answer" ? answerRecords(question.name, question.type, resolution.records) : [],
    authorities: resolution.kind === "nodata" || resolution.kind === "nxdomain" ? [soa(resolution.zone)] : [],
    additionals: ednsOf(query)
      ? [
          {
            type: "OPT",
            name: ".",
            udpPayloadSize: EDNS_SIZE,
            extendedRcode: 0,
            ednsVersion: 0,
            flags: 0,
            flag_do: false,
            options: [],
          },
        ]
      : [],
  };
}

/** Largest UDP answer the client accepts: its EDNS buffer size, else 512 bytes. */
function udpLimit(query: dnsPacket.DecodedPacket): number {
  return Math.max(ednsOf(query)?.udpPayloadSize ?? 0, UDP_DEFAULT_SIZE);
}

function encodeForUdp(response: dnsPacket.Packet, limit: number): Buffer {
  const full = dnsPacket.encode(response);
  if (full.length <= limit) return full;
  return dnsPacket.encode({
    ...response,
    flags: (response.flags ?? 0) | dnsPacket.TRUNCATED_RESPONSE,
    answers: [],
    authorities: [],
  });
}

function frame(message: Buffer): Buffer {
  const framed = Buffer.allocUnsafe(message.length + 2);
  framed.writeUInt16BE(message.length, 0);
  message.copy(framed, 2);
  return framed;
}

export interface DnsServerOptions {
  /** A fixed port (a server that comes back where it was); default: one the OS picks. */
  port?: number;
}

export async function startDnsServer(zones: Zones, options: DnsServerOptions = {}): Promise<DnsTestServer> {
  const queries = new QueryLog();
  const timers = new Set<NodeJS.Timeout>();
  const connections = new Set<Socket>();

  /** Decodes, logs and answers one message; `send` gets the encoded answer. */
  function handle(
    message: Buffer,
    transport: Transport,
    send: (query: dnsPacket.DecodedPacket, response: dnsPacket.Packet) => void,
    /** Raw bytes on UDP; over TCP, null closes the connection. */
    sendRaw: (bytes: Buffer | null) => void,
  ) {
    /** `garbage`: the query's id, then random bytes; `truncated`: TC set without records, and no TCP answer. */
    const sendFault = (fault: "garbage" | "truncated", query: dnsPacket.DecodedPacket, via: Transport) => {
      if (fault === "garbage") {
        const bytes = randomBytes(2 + randomInt(12, 64));
        bytes.writeUInt16BE(query.id ?? 0, 0);
        sendRaw(via === "tcp" ? frame(bytes) : bytes);
      } else if (via === "udp") {
        const question = query.questions?.[0];
        sendRaw(
          dnsPacket.encode({
            type: "response",
            id: query.id,
            flags: dnsPacket.AUTHORITATIVE_ANSWER | dnsPacket.TRUNCATED_RESPONSE,
            questions: question ? [question] : [],
          }),
        );
      } else {
        sendRaw(null);
      }
    };
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (query.type !== "query" || !question) return;
    queries.record(question.name, question.type, transport);
    const fault = zones.resolve(question.name, question.type).kind;
    if (fault === "garbage" || fault === "truncated") {
      sendFault(fault, query, transport);
      return;
    }
    const response = respond(zones, query, question);
    if (!response) return;
    const delay = zones.delayOf(question.name);
    if (delay === 0) {
      send(query, response);
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      send(query, response);
    }, delay);
    timers.add(timer);
  }

  function answerUdp(udp: UdpSocket) {
    return (message: Buffer, peer: RemoteInfo) =>
      handle(
        message,
        "udp",
        (query, response) => {
          udp.send(encodeForUdp(response, udpLimit(query)), peer.port, peer.address);
        },
        (bytes) => {
          if (bytes) udp.send(bytes, peer.port, peer.address);
        },
      );
  }

  const tcp = createServer((socket) => {
    connections.add(socket);
    socket.on("close", () => connections.delete(socket));
    socket.on("error", () => socket.destroy());
    let pending = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 2) {
        const length = pending.readUInt16BE(0);
        if (pending.length < length + 2) break;
        const message = pending.subarray(2, length + 2);
        pending = pending.subarray(length + 2);
        handle(
          message,
          "tcp",
          (_query, response) => {
            if (!socket.destroyed) socket.write(frame(dnsPacket.encode(response)));
          },
          (bytes) => {
            if (bytes === null) socket.destroy();
            else if (!socket.destroyed) socket.write(bytes);
          },
        );
      }
    });
  });

  // UDP first on port 0, then TCP on the same port; retry if something else holds that TCP port.
  let udp: UdpSocket;
  for (let attempt = 1; ; attempt++) {
    // A receive buffer large enough for bursts of queries from many checks in flight
    // (the kernel caps it at net.core.rmem_max): a dropped query costs a c-ares retry.
    udp = createSocket({ type: "udp4", recvBufferSize: UDP_RECEIVE_BUFFER_BYTES });
    udp.on("message", answerUdp(udp));
    udp.bind(options.port ?? 0, HOST);
    await once(udp, "listening");
    tcp.listen(udp.address().port, HOST);
    try {
      await once(tcp, "listening");
      break;
    } catch (error) {
      udp.close();
      if (attempt >= 5 || options.port !== undefined) throw error;
    }
  }
  const { port } = udp.address();

  return {
    address: `${HOST}:${port}`,
    port,
    queries,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of connections) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
}
