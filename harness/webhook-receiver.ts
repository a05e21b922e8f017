/**
 * A loopback webhook receiver for the webhook tests and benchmark: it keeps every request
 * (headers, body, path, when) and answers each with the next status of a domain's
 * script (default 200): a 3xx redirects to `/elsewhere`, and 0 never answers (the
 * sender times out).
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  at: number;
  path: string;
  /** The status answered (0: none). */
  status: number;
}

export interface WebhookReceiver {
  /** e.g. `http://127.0.0.1:41234/hook` */
  url: string;
  received: ReceivedWebhook[];
  /** The statuses the next requests about `domain` get, in order; then 200. */
  script(domain: string, statuses: number[]): void;
  /** Resolves with the received requests once `condition` holds; rejects after `timeoutMs`. */
  waitFor(
    condition: (received: ReceivedWebhook[]) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const scripts = new Map<string, number[]>();
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      const json = JSON.parse(body) as Record<string, unknown>;
      const status = scripts.get(String(json.domain))?.shift() ?? 200;
      received.push({
        headers: request.headers,
        body,
        json,
        at: Date.now(),
        path: request.url ?? "",
        status,
      });
      if (status === 0) return;
      const location = status >= 300 && status < 400 ? { location: "/elsewhere" } : {};
      response.writeHead(status, { "content-type": "text/plain", ...location }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    script: (domain, statuses) => scripts.set(domain, [...statuses]),
    async waitFor(condition, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!condition(received)) {
        if (Date.now() > deadline) {
          throw new Error(
            `condition not met within ${timeoutMs} ms; received ${JSON.stringify(received.map((r) => r.json))}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
