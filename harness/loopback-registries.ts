/**
 * Loopback registries for the domain-age tests: an RDAP server (node:http) and a
 * WHOIS server (node:net), both on port 0, answering per queried domain. Each counts
 * the queries it saw; the RDAP one also records the peak of concurrent requests.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingHttpHeaders } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { WhoisServer } from "../src/registry/whois-servers.js";

const FIXTURES = new URL("../test/fixtures/", import.meta.url);

export function fixture(path: string): string {
  return readFileSync(new URL(path, FIXTURES), "utf8");
}

export interface RdapReply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

export interface LoopbackRdap {
  /** Base URL with trailing slash, e.g. `http://127.0.0.1:41234/rdap/`. */
  baseUrl: string;
  /** Domains queried, in order. */
  queries: string[];
  /** Request headers of each query. */
  headers: IncomingHttpHeaders[];
  peakInFlight: number;
  close(): Promise<void>;
}

export async function startRdapServer(reply: (domain: string) => RdapReply): Promise<LoopbackRdap> {
  let inFlight = 0;
  const state: LoopbackRdap = {
    baseUrl: "",
    queries: [],
    headers: [],
    peakInFlight: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createHttpServer((request, response) => {
    const domain = decodeURIComponent(/\/rdap\/domain\/([^/?]+)$/.exec(request.url ?? "")?.[1] ?? "");
    state.queries.push(domain);
    state.headers.push(request.headers);
    inFlight += 1;
    state.peakInFlight = Math.max(state.peakInFlight, inFlight);
    const answer = reply(domain);
    const timer = setTimeout(() => {
      inFlight -= 1;
      response.writeHead(answer.status, { "content-type": "application/rdap+json", ...answer.headers });
      response.end(answer.body ?? "");
    }, answer.delayMs ?? 0);
    response.on("close", () => {
      if (!response.writableFinished) {
        clearTimeout(timer);
        inFlight -= 1;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rdap/`;
  return state;
}

export interface LoopbackWhois {
  /** `127.0.0.1:port`, the WHOIS_SERVER form. */
  address: string;
  /** The same, parsed (what `createDomainAgeLookup` takes). */
  server: WhoisServer;
  port: number;
  queries: string[];
  close(): Promise<void>;
}

/** `answer` returns the text to send, or null to keep the connection silent (a hanging server). */
export async function startWhoisServer(answer: (domain: string) => string | null): Promise<LoopbackWhois> {
  const sockets = new Set<Socket>();
  const state: LoopbackWhois = {
    address: "",
    server: { host: "127.0.0.1", port: 0 },
    port: 0,
    queries: [],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("utf8");
      const end = received.indexOf("\r\n");
      if (end < 0) return;
      const domain = received.slice(0, end);
      state.queries.push(domain);
      const text = answer(domain);
      if (text !== null) socket.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.port = (server.address() as AddressInfo).port;
  state.address = `127.0.0.1:${state.port}`;
  state.server = { host: "127.0.0.1", port: state.port };
  return state;
}

/** Writes an IANA-format bootstrap routing each TLD to its base URL; returns the file path. */
export async function writeBootstrap(routes: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "mailrisk-rdap-"));
  const file = join(dir, "dns.json");
  const services = Object.entries(routes).map(([tld, url]) => [[tld], [url]]);
  await writeFile(file, JSON.stringify({ version: "1.0", publication: "2026-11-01T00:00:00Z", services }));
  return file;
}

/** A clock the test moves by hand. */
export function manualClock(start: string): { clock: () => Date; advance(ms: number): void } {
  let now = new Date(start).getTime();
  return {
    clock: () => new Date(now),
    advance: (ms) => {
      now += ms;
    },
  };
}
