/**
 * `mailrisk webhooks add <url> [--events …] [--secret S] [--json]`, `webhooks list [--json]`,
 * `webhooks remove <id>` and `webhooks deliveries [<id>] [--json]` (docs/webhooks.md):
 * the CLI's adapter of src/operator/webhooks.ts.
 * Exit codes: 0 done, 1 unknown webhook, 2 bad arguments.
 */
import { CLI_ACTOR } from "../operator/audit.js";
import {
  addWebhook,
  type DeliveryJson,
  deliveries,
  listWebhooks,
  removeWebhook,
  type WebhookJson,
} from "../operator/webhooks.js";
import { parseArguments, runSubcommand, usageError } from "./arguments.js";
import type { CliContext } from "./context.js";
import { formatTable } from "./table.js";
import { usageOf } from "./usage-text.js";
import { listing, withStore, writeJson } from "./with-store.js";

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
  const { events, secret, json } = result.parsed.values;
  const webhook = await withStore(ctx, (store) =>
    addWebhook(store, { url, events, secret }, ctx.clock(), CLI_ACTOR),
  );
  if (json) {
    writeJson(ctx, webhook);
    return 0;
  }
  ctx.stdout.write(`Created webhook ${webhook.id} for ${webhook.events.join(", ")} to ${webhook.url}\n`);
  if (webhook.secret)
    ctx.stdout.write(`Its signing secret, shown only this once:\n\n    ${webhook.secret}\n\n`);
  return 0;
}

function webhooksText(webhooks: WebhookJson[]): string {
  const rows = webhooks.map((w) => [w.id, w.events.join(","), w.created_at, w.url]);
  return `${formatTable([["ID", "EVENTS", "CREATED", "URL"], ...rows])}\n`;
}

async function remove(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("webhooks", "remove");
  const result = parseArguments({ args, options: {}, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const [id, ...extra] = result.parsed.positionals;
  if (id === undefined || extra.length > 0) return usageError(ctx, "webhooks remove takes one id", usage);
  if (!(await withStore(ctx, (store) => removeWebhook(store, id, CLI_ACTOR))).removed) {
    ctx.stderr.write(`mailrisk: unknown webhook ${id}\n`);
    return 1;
  }
  ctx.stdout.write(`Removed webhook ${id} with its events.\n`);
  return 0;
}

function deliveriesText(events: DeliveryJson[]): string {
  const rows = events.map((event) => [
    event.id,
    event.webhook_id,
    event.type,
    event.domain,
    event.status,
    event.attempts.map((a) => `${a.attempt}:${a.status_code ?? a.error ?? "?"}`).join(" ") || "-",
    event.next_attempt_at ?? "-",
  ]);
  return `${formatTable([["EVENT", "WEBHOOK", "TYPE", "DOMAIN", "STATUS", "ATTEMPTS", "NEXT TRY"], ...rows])}\n`;
}

async function deliveriesOf(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("webhooks", "deliveries");
  const result = parseArguments({ args, options: { json: { type: "boolean" } }, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const [id, ...extra] = result.parsed.positionals;
  if (extra.length > 0) return usageError(ctx, "webhooks deliveries takes at most one id", usage);
  const events = await withStore(ctx, (store) => deliveries(store, id ?? null));
  if (result.parsed.values.json) writeJson(ctx, events);
  else ctx.stdout.write(deliveriesText(events));
  return 0;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  const list = (rest: string[], c: CliContext) =>
    listing(rest, c, usageOf("webhooks", "list"), listWebhooks, webhooksText);
  const subcommands = { add, list, remove, deliveries: deliveriesOf };
  return runSubcommand("webhooks", subcommands, usageOf("webhooks"), args, ctx);
}
