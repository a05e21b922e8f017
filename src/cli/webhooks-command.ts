/** `mailrisk webhooks …` (docs/webhooks.md): adapts src/operator/webhooks.ts; forms in commands.ts. */
import { CLI_ACTOR } from "../operator/audit.js";
import {
  addWebhook,
  type DeliveryJson,
  deliveries,
  listWebhooks,
  removeWebhook,
  type WebhookJson,
} from "../operator/webhooks.js";
import { commandRunner, failed, type Given } from "./arguments.js";
import type { CliContext } from "./context.js";
import { formatTable } from "./table.js";
import { answering, withStore } from "./with-store.js";

function addedText({ id, events, url, secret }: WebhookJson & { secret?: string }): string {
  return (
    `Created webhook ${id} for ${events.join(", ")} to ${url}\n` +
    (secret ? `Its signing secret, shown only this once:\n\n    ${secret}\n\n` : "")
  );
}

function webhooksText(webhooks: WebhookJson[]): string {
  const rows = webhooks.map((w) => [w.id, w.events.join(","), w.created_at, w.url]);
  return `${formatTable([["ID", "EVENTS", "CREATED", "URL"], ...rows])}\n`;
}

async function remove({ words: [id = ""] }: Given, ctx: CliContext): Promise<number> {
  if (!(await withStore(ctx, (store) => removeWebhook(store, id, CLI_ACTOR))).removed)
    return failed(ctx, `unknown webhook ${id}`);
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

export const run = commandRunner("webhooks", {
  add: answering((store, given, ctx) => {
    const body = { url: given.words[0] ?? "", events: given.text("events"), secret: given.text("secret") };
    return addWebhook(store, body, ctx.clock(), CLI_ACTOR);
  }, addedText),
  list: answering(listWebhooks, webhooksText),
  remove,
  deliveries: answering((store, { words: [id] }) => deliveries(store, id ?? null), deliveriesText),
});
