/**
 * `mailrisk webhooks add <url> [--events …] [--secret S]`, `webhooks list [--json]`,
 * `webhooks remove <id>` and `webhooks deliveries [<id>] [--json]` (docs/webhooks.md):
 * the operator's subscriptions to block status flips, and what was delivered.
 * Exit codes: 0 done, 1 unknown webhook (remove, deliveries), 2 bad arguments.
 */
import { formatTimestamp } from "../core/record.js";
import {
  deliveryJson,
  UnknownWebhookError,
  webhookDeliveries,
  webhookInput,
  webhookJson,
} from "../service/webhooks.js";
import type { Delivery } from "../store/types.js";
import { parseArguments, runSubcommand, usageError } from "./arguments.js";
import type { CliContext } from "./context.js";
import { formatTable } from "./table.js";
import { usageOf } from "./usage.js";
import { withStore } from "./with-store.js";

/** Events `deliveries` shows. */
const SHOWN = 100;

async function add(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("webhooks", "add");
  const result = parseArguments({
    args,
    options: { events: { type: "string" }, secret: { type: "string" }, json: { type: "boolean" } },
    allowPositionals: true,
  });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const [url, ...extra] = result.parsed.positionals;
  if (url === undefined || extra.length > 0) return usageError(ctx, "webhooks add takes one URL", usage);
  const input = webhookInput(url, result.parsed.values.events, result.parsed.values.secret);
  if (!input.ok) return usageError(ctx, input.message, usage);
  const webhook = await withStore(ctx, (store) =>
    store.webhooks.createWebhook({
      url: input.url,
      secret: input.secret,
      events: input.events,
      now: new Date(),
    }),
  );
  if (result.parsed.values.json) {
    ctx.stdout.write(
      `${JSON.stringify({ ...webhookJson(webhook), ...(input.generated ? { secret: input.secret } : {}) })}\n`,
    );
    return 0;
  }
  ctx.stdout.write(`Created webhook ${webhook.id} for ${webhook.events.join(", ")} to ${webhook.url}\n`);
  if (input.generated)
    ctx.stdout.write(`Its signing secret, shown only this once:\n\n    ${input.secret}\n\n`);
  return 0;
}

async function list(args: string[], ctx: CliContext): Promise<number> {
  const result = parseArguments({ args, options: { json: { type: "boolean" } }, allowPositionals: false });
  if (!result.ok) return usageError(ctx, result.message, usageOf("webhooks", "list"));
  const webhooks = await withStore(ctx, (store) => store.webhooks.listWebhooks());
  if (result.parsed.values.json) {
    ctx.stdout.write(`${JSON.stringify(webhooks.map(webhookJson))}\n`);
    return 0;
  }
  const rows = webhooks.map((w) => [w.id, w.events.join(","), formatTimestamp(w.createdAt), w.url]);
  ctx.stdout.write(`${formatTable([["ID", "EVENTS", "CREATED", "URL"], ...rows])}\n`);
  return 0;
}

async function remove(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("webhooks", "remove");
  const result = parseArguments({ args, options: {}, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const [id, ...extra] = result.parsed.positionals;
  if (id === undefined || extra.length > 0) return usageError(ctx, "webhooks remove takes one id", usage);
  if (!(await withStore(ctx, (store) => store.webhooks.removeWebhook(id)))) {
    ctx.stderr.write(`mailrisk: ${new UnknownWebhookError(id).message}\n`);
    return 1;
  }
  ctx.stdout.write(`Removed webhook ${id} with its events.\n`);
  return 0;
}

async function deliveries(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("webhooks", "deliveries");
  const result = parseArguments({ args, options: { json: { type: "boolean" } }, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const [id, ...extra] = result.parsed.positionals;
  if (extra.length > 0) return usageError(ctx, "webhooks deliveries takes at most one id", usage);
  let events: Delivery[];
  try {
    events = await withStore(ctx, (store) => webhookDeliveries(store.webhooks, id ?? null, SHOWN));
  } catch (error) {
    if (!(error instanceof UnknownWebhookError)) throw error;
    ctx.stderr.write(`mailrisk: ${error.message}\n`);
    return 1;
  }
  if (result.parsed.values.json) {
    ctx.stdout.write(`${JSON.stringify(events.map(deliveryJson))}\n`);
    return 0;
  }
  const rows = events.map((event) => [
    event.id,
    event.webhookId,
    event.type,
    event.domain,
    event.status,
    event.attempts.map((a) => `${a.attempt}:${a.statusCode ?? a.error ?? "?"}`).join(" ") || "-",
    event.nextAttemptAt ? formatTimestamp(event.nextAttemptAt) : "-",
  ]);
  ctx.stdout.write(
    `${formatTable([["EVENT", "WEBHOOK", "TYPE", "DOMAIN", "STATUS", "ATTEMPTS", "NEXT TRY"], ...rows])}\n`,
  );
  return 0;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  return runSubcommand("webhooks", { add, list, remove, deliveries }, usageOf("webhooks"), args, ctx);
}
