/**
 * `mailrisk demo [--port N] [--service URL] --key mrp_…`: serves a plain sign-up form
 * with the widget on 127.0.0.1:PORT (default 8081), checking through the service at
 * `--service` (default `http://127.0.0.1:<PORT of the configuration>`) with a
 * publishable key that lists the demo's origin. It needs no database. At start it asks
 * the service whether it takes the key from the demo's origin (one request, which
 * counts one unit) and stops with what is wrong when it does not.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArguments, usageError, wholeNumber } from "./arguments.js";
import type { CliContext } from "./context.js";
import { demoPageHeaders, renderSignedUpPage, renderSignUpPage } from "./demo-page.js";
import { usageOf } from "./usage-text.js";

const USAGE = usageOf("demo");
export const DEFAULT_DEMO_PORT = 8081;
const DEMO_HOST = "127.0.0.1";

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

/** `--service` as an http(s) base URL ending in `/`, or undefined. */
function serviceUrl(text: string): string | undefined {
  try {
    const url = new URL(text.endsWith("/") ? text : `${text}/`);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  const parsed = parseArguments({
    args,
    options: { port: { type: "string" }, service: { type: "string" }, key: { type: "string" } },
    allowPositionals: false,
  });
  if (!parsed.ok) return usageError(ctx, `demo: ${parsed.message}`, USAGE);
  const values = parsed.parsed.values;
  const port = values.port === undefined ? DEFAULT_DEMO_PORT : wholeNumber(values.port);
  if (port === undefined || port < 1 || port > 65535) {
    return usageError(ctx, "demo: --port must be a whole number from 1 to 65535", USAGE);
  }
  const origin = `http://${DEMO_HOST}:${port}`;
  const create = `mailrisk keys create --plan free --publishable --origin ${origin}`;
  const key = values.key;
  if (key === undefined || !key.startsWith("mrp_")) {
    const why =
      key === undefined
        ? "demo needs a publishable key"
        : "demo takes only a publishable key (mrp_…): a secret key must never be put in a web page";
    return usageError(ctx, `${why}; create one for the demo's origin with\n  ${create}`, USAGE);
  }
  const service = serviceUrl(values.service ?? `http://127.0.0.1:${ctx.config.port}`);
  if (service === undefined) return usageError(ctx, "demo: --service must be an http(s) URL", USAGE);

  const check = await checkDemoKey(service, key, origin);
  if (!check.ok && check.answered) {
    ctx.stderr.write(`mailrisk: demo: ${check.message}\n`);
    return 1;
  }
  // A service that does not run yet may start later: the form fails open until then.
  if (!check.ok)
    ctx.stderr.write(`mailrisk: demo: ${check.message}; the form accepts every address until it does\n`);
  let demo: DemoServer;
  try {
    demo = await startDemoServer({ port, serviceUrl: service, key });
  } catch (error) {
    ctx.stderr.write(`mailrisk: demo cannot listen on ${origin}: ${(error as Error).message}\n`);
    return 1;
  }
  ctx.stdout.write(
    `mailrisk demo: a sign-up form on ${demo.url}/ checking through ${service} with key ${key.slice(0, 8)}…\n` +
      `The key must list the origin ${demo.url} (${create}).\nCtrl-C stops it.\n`,
  );
  await Promise.race([once(process, "SIGINT"), once(process, "SIGTERM")]);
  await demo.close();
  return 0;
}
