/**
 * A loopback HTTP server publishing disposable lists, for the list-sync tests and the
 * benchmark: each path answers what the test set (a body, a status, a redirect, or no
 * answer at all), and can be changed between syncs.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type Published =
  | { body: string | Uint8Array; status?: number; contentType?: string }
  | { redirect: string }
  /** Accepts the request and never answers. */
  | { silent: true };

export interface ListServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  publish(path: string, answer: Published): void;
  /** How many requests each path got. */
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startListServer(): Promise<ListServer> {
  const answers = new Map<string, Published>();
  const hits = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const path = request.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const answer = answers.get(path);
    if (answer === undefined) {
      response.writeHead(404).end();
    } else if ("silent" in answer) {
      // never answered; closed with the server
    } else if ("redirect" in answer) {
      response.writeHead(302, { location: answer.redirect }).end();
    } else {
      response.writeHead(answer.status ?? 200, { "content-type": answer.contentType ?? "text/plain" });
      response.end(answer.body);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    publish: (path, answer) => answers.set(path, answer),
    hits: (path) => hits.get(path) ?? 0,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A list of `count` made-up disposable domains, one a line, with a comment header. */
export function madeUpList(count: number, prefix = "throwaway", tld = "com"): string {
  const lines = ["# made-up disposable domains"];
  for (let i = 0; i < count; i++) lines.push(`${prefix}-${i}.${tld}`);
  return `${lines.join("\n")}\n`;
}
