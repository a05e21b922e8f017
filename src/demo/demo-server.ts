/**
 * The sign-up form of `mailrisk demo` (docs/clients.md, "mailrisk demo"): a small HTTP
 * server of its own that serves the form with the service's widget, and the question
 * asked of the service at start, whether it takes the demo's key from the demo's origin.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { demoPageHeaders, renderSignedUpPage, renderSignUpPage } from "./demo-page.js";

export const DEMO_HOST = "127.0.0.1";

export interface DemoServer {
  /** The demo's origin, e.g. `http://127.0.0.1:8081`: the origin its key must list. */
  url: string;
  close(): Promise<void>;
}

/** Serves the sign-up form on `host:port` (0: any free port) with the widget of `serviceUrl`. */
export async function startDemoServer(options: {
  host?: string;
  port: number;
  serviceUrl: string;
  key: string;
}): Promise<DemoServer> {
  const service = new URL(options.serviceUrl);
  const headers = demoPageHeaders(service.origin);
  const signUp = renderSignUpPage(new URL("widget.js", service).href, options.key);
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://demo").pathname;
    // The body is not read: the demo keeps no address.
    request.resume();
    if (request.method === "GET" && path === "/") response.writeHead(200, headers).end(signUp);
    else if (request.method === "POST" && path === "/signed-up")
      response.writeHead(200, headers).end(renderSignedUpPage());
    else response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found\n");
  });
  server.listen(options.port, options.host ?? DEMO_HOST);
  await once(server, "listening");
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** How long the start's question to the service may take. */
const KEY_CHECK_MS = 5000;

type KeyCheck = { ok: true } | { ok: false; answered: boolean; message: string };

/**
 * Asks the service whether it takes `key` from `origin`: a `POST /v2/` without an input
 * passes the key and origin checks and stops at 400 `missing_input` (no look-up).
 * `answered` false: the service did not answer (it may not run yet).
 */
export async function checkDemoKey(serviceUrl: string, key: string, origin: string): Promise<KeyCheck> {
  let response: Response;
  try {
    response = await fetch(new URL("v2/", serviceUrl), {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, origin, "content-type": "application/json" },
      body: "{}",
      signal: AbortSignal.timeout(KEY_CHECK_MS),
    });
  } catch (error) {
    const { cause } = error as { cause?: { code?: string; message?: string } };
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    return { ok: false, answered: false, message: `the service at ${serviceUrl} does not answer (${why})` };
  }
  if (response.status === 400) return { ok: true };
  const problem = (await response.json().catch(() => ({}))) as { code?: string; detail?: string };
  const refusal = problem.code ?? `status ${response.status}`;
  const hint =
    refusal === "origin_not_allowed"
      ? `; add the origin with mailrisk keys set-origins <id> ${origin} (its other origins too)`
      : refusal === "invalid_api_key"
        ? "; is it a key of this service's database, not revoked?"
        : "";
  return {
    ok: false,
    answered: true,
    message: `the service at ${serviceUrl} refuses the key from ${origin}: ${refusal}${problem.detail ? ` (${problem.detail})` : ""}${hint}`,
  };
}
