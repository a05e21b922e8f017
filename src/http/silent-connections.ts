/**
 * Connections that have carried no request yet are closed when the server starts
 * closing. Node's `server.close()` closes keep-alive connections between requests, but
 * not one that was opened and has sent nothing, or only part of its headers: their
 * headers time-out is checked by an interval that `close()` stops. Left open, a client
 * that connects and stays silent would hold the close, and so the process's exit on
 * SIGTERM, for as long as it likes.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";

/** Tracks `server`'s connections until their first request; the function returned closes those still silent. */
export function silentConnections(server: Server): () => void {
  const silent = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    silent.add(socket);
    socket.once("close", () => silent.delete(socket));
  });
  server.on("request", (request: IncomingMessage) => {
    silent.delete(request.socket);
  });
  return () => {
    for (const socket of silent) socket.destroy();
    silent.clear();
  };
}
