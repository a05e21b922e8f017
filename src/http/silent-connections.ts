/**
 * Connections that have sent nothing yet are closed when the server starts closing.
 * Node's `server.close()` closes keep-alive connections between requests, but not one
 * that was opened and has sent nothing: its headers time-out is checked by an interval
 * that `close()` stops. Left open, a client that connects and stays silent would hold
 * the close, and so the process's exit on SIGTERM, for as long as it likes. A request
 * already under way (part of its headers sent) is left to complete: it is answered
 * 503 `shutting_down`.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";

/** Tracks `server`'s open connections; the function returned closes those that have sent no byte. */
export function silentConnections(server: Server): () => void {
  const open = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  });
  return () => {
    for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
  };
}
