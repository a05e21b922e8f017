/**
 * `mailrisk demo` (docs/clients.md "The demo"): a sign-up form with the widget on 127.0.0.1, checking
 * through the service with a publishable key; at start it asks the service whether it takes the key
 * from the demo's origin (one request, one unit) and stops with what is wrong when it does not.
 */
import { once } from "node:events";
import { checkDemoKey, DEMO_HOST, type DemoServer, startDemoServer } from "../demo/demo-server.js";
import { commandRunner, failed, usageError, wholeNumber } from "./arguments.js";
export const DEFAULT_DEMO_PORT = 8081;

/** `--service` as an http(s) base URL ending in `/`, or undefined. */
function serviceUrl(text: string): string | undefined {
  try {
    const url = new URL(text.endsWith("/") ? text : `${text}/`);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

export const run = commandRunner("demo", async (given, ctx) => {
  const portText = given.text("port");
  const port = portText === undefined ? DEFAULT_DEMO_PORT : wholeNumber(portText);
  if (port === undefined || port < 1 || port > 65535) {
    return usageError(ctx, "demo: --port must be a whole number from 1 to 65535", given.usage);
  }
  const origin = `http://${DEMO_HOST}:${port}`;
  const create = `mailrisk keys create --plan free --publishable --origin ${origin}`;
  const key = given.text("key");
  if (key === undefined || !key.startsWith("mrp_")) {
    const why =
      key === undefined
        ? "demo needs a publishable key"
        : "demo takes only a publishable key (mrp_…): a secret key must never be put in a web page";
    return usageError(ctx, `${why}; create one for the demo's origin with\n  ${create}`, given.usage);
  }
  const service = serviceUrl(given.text("service") ?? `http://127.0.0.1:${ctx.config.port}`);
  if (service === undefined) return usageError(ctx, "demo: --service must be an http(s) URL", given.usage);

  const check = await checkDemoKey(service, key, origin);
  if (!check.ok && check.answered) return failed(ctx, `demo: ${check.message}`);
  // A service that does not run yet may start later: the form fails open until then.
  if (!check.ok)
    ctx.stderr.write(`mailrisk: demo: ${check.message}; the form accepts every address until it does\n`);
  let demo: DemoServer;
  try {
    demo = await startDemoServer({ port, serviceUrl: service, key });
  } catch (error) {
    return failed(ctx, `demo cannot listen on ${origin}: ${(error as Error).message}`);
  }
  ctx.stdout.write(
    `mailrisk demo: a sign-up form on ${demo.url}/ checking through ${service} with key ${key.slice(0, 8)}…\n` +
      `The key must list the origin ${demo.url} (${create}).\nCtrl-C stops it.\n`,
  );
  await Promise.race([once(process, "SIGINT"), once(process, "SIGTERM")]);
  await demo.close();
  return 0;
});
