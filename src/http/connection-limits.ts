/**
 * Caps on open connections (docs/security.md, "Connections and slow clients"): one for
 * the process (MAX_CONNECTIONS) and one per client address (MAX_CONNECTIONS_PER_CLIENT;
 * an IPv6 client by its /64), counted on the server's `connection` event, before a byte
 * is parsed. A connection over either cap is destroyed at once: a client holding
 * thousands of slow connections uses up its own share, never the descriptors every
 * other client needs.
 */
import { readFileSync } from "node:fs";
import type { Server, Socket } from "node:net";
import { ConfigError } from "../config.js";
import { DESCRIPTOR_HEADROOM } from "../config-table.js";
import { subscriberOf } from "./client-networks.js";

/** Which cap refused a connection (the label of `mailrisk_connections_refused_total`). */
export type ConnectionLimit = "overall" | "per_client";

export interface ConnectionLimits {
  /** Open connections this process holds. */
  overall: number;
  /** Open connections per client address (the socket's peer); null: no cap. */
  perClient: number | null;
}

/** MAX_CONNECTIONS where the open-file limit cannot be read. */
const FALLBACK_MAX_CONNECTIONS = 1000;

/** The soft limit of open files (`ulimit -n`), from /proc/self/limits; null where it cannot be read or is unlimited. */
export function openFileLimit(read = () => readFileSync("/proc/self/limits", "utf8")): number | null {
  try {
    const match = /^Max open files\s+(\d+)/m.exec(read());
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/**
 * MAX_CONNECTIONS in force: the open-file limit less the descriptors the database, DNS,
 * registries and files need (half the limit when it is small), or the configured value,
 * which must fit under it.
 */
export function connectionCap(configured: number | null, fileLimit: number | null): number {
  if (fileLimit === null) return configured ?? FALLBACK_MAX_CONNECTIONS;
  const headroom = Math.min(DESCRIPTOR_HEADROOM, Math.floor(fileLimit / 2));
  const fits = fileLimit - headroom;
  if (configured === null) return fits;
  if (configured > fits) {
    throw new ConfigError(
      `MAX_CONNECTIONS ${configured} does not fit the open-file limit ${fileLimit} (ulimit -n) less ${headroom} descriptors for the database, DNS, registries and files: set at most ${fits}, or raise the limit`,
    );
  }
  return configured;
}

/** Counts `server`'s open connections and destroys each new one over a cap, telling `onRefused`. */
export function limitConnections(
  server: Server,
  limits: ConnectionLimits,
  onRefused: (limit: ConnectionLimit) => void,
): void {
  let open = 0;
  const byClient = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const client = subscriberOf(socket.remoteAddress ?? "");
    const fromClient = byClient.get(client) ?? 0;
    const refused: ConnectionLimit | null =
      open >= limits.overall
        ? "overall"
        : limits.perClient !== null && fromClient >= limits.perClient
          ? "per_client"
          : null;
    if (refused) {
      socket.destroy();
      onRefused(refused);
      return;
    }
    open++;
    byClient.set(client, fromClient + 1);
    socket.once("close", () => {
      open--;
      const left = (byClient.get(client) ?? 1) - 1;
      if (left === 0) byClient.delete(client);
      else byClient.set(client, left);
    });
  });
}
