/**
 * A request answered before its body was read to the end (over the body limit, refused
 * from its headers, or a body the route ignores): its answer says `Connection: close`,
 * and nothing more of the body is read. But the client may still be sending, and its
 * answer must reach it all the same: a connection closed while bytes still arrive is
 * reset, and a client whose next write meets the reset loses the answer it had received
 * but not yet read (a busy client most of all).
 *
 * So the close lingers, as a web server's does: the answer is followed by the end of the
 * server's side, reading stops (the client's writes wait once the window is full, and
 * the server spends nothing on them), and the connection is dropped LINGER_MS later. A
 * client still writing then meets the end or the reset in its reads first, after the
 * answer. No byte past the socket's buffers is read; the connection counts against the
 * caps until it goes.
 */
import type { IncomingMessage } from "node:http";

/** How long a connection whose body did not end is kept, unread, after its answer. */
export const LINGER_MS = 3000;

/** Whether a request declared a body that has not arrived whole. */
export function hasUnreadBody(raw: IncomingMessage): boolean {
  const length = raw.headers["content-length"];
  const declared = raw.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
  return declared && !raw.complete;
}

/**
 * Makes the close of `raw`'s connection, once its `Connection: close` answer is written,
 * a lingering one (see above). Node closes such a connection with the socket's
 * `destroySoon()`, at once, unread bytes and all; this socket's does the above instead.
 */
export function lingerOnClose(raw: IncomingMessage): void {
  const socket = raw.socket;
  if (!socket || socket.destroyed) return;
  socket.destroySoon = () => {
    socket.end();
    // Node resumes an unread body to drop it; the next turn stops reading for good.
    setImmediate(() => socket.pause());
    const drop = setTimeout(() => socket.destroy(), LINGER_MS);
    drop.unref();
    socket.once("close", () => clearTimeout(drop));
  };
}
