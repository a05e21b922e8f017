/** `mailrisk overrides …` (docs/verdicts.md): adapts src/operator/overrides.ts; forms in commands.ts. */
import type { InfrastructureKind, OverrideKind } from "../core/learned.js";
import { CLI_ACTOR } from "../operator/audit.js";
import { listOverrides, type OverrideJson, removeOverride, setOverride } from "../operator/overrides.js";
import { commandRunner, failed, type Given, usageError } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { formatTable } from "./table.js";
import { answering, withStore } from "./with-store.js";

const INFRASTRUCTURE: Record<string, InfrastructureKind> = {
  "mx-host": "mx_host",
  "mx-ip": "mx_ip",
  ns: "ns",
};

/** `<domain>` or `mx-host|mx-ip|ns <value>`, or what is wrong with the words. */
function target(words: readonly string[]): { kind: OverrideKind; value: string } | string {
  const [first, second, ...extra] = words;
  if (first === undefined) return "needs a domain, or mx-host, mx-ip or ns and a value";
  if (extra.length > 0) return `"${extra.join(" ")}" is too much after ${first} ${second}`;
  const kind = INFRASTRUCTURE[first];
  if (kind === undefined)
    return second === undefined
      ? { kind: "domain", value: first }
      : `unknown kind "${first}" (mx-host, mx-ip, ns)`;
  return second === undefined ? `${first} needs a value` : { kind, value: second };
}

function overrideRow(override: OverrideJson): string[] {
  return [override.kind, override.value, override.action, override.created_at, override.note ?? ""];
}

async function add(given: Given, ctx: CliContext): Promise<number> {
  const [verb, ...rest] = given.words;
  const action =
    verb === "allow" || verb === "deny" ? verb : verb === "never-disposable" ? "never_disposable" : undefined;
  if (action === undefined) {
    const got = verb === undefined ? "" : ` (got "${verb}")`;
    return usageError(ctx, `overrides add needs allow, deny or never-disposable${got}`, given.usage);
  }
  const what = target(rest);
  if (typeof what === "string") return usageError(ctx, `overrides add ${verb} ${what}`, given.usage);
  const note = given.text("note");
  const saved = await withStore(ctx, (store) =>
    setOverride(store, { ...what, action, note }, ctx.clock(), ctx.config, CLI_ACTOR),
  );
  ctx.stdout.write(`Set override: ${saved.kind} ${saved.value} ${action}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
  return 0;
}

async function remove(given: Given, ctx: CliContext): Promise<number> {
  const what = target(given.words);
  if (typeof what === "string") return usageError(ctx, `overrides remove ${what}`, given.usage);
  if (!(await withStore(ctx, (store) => removeOverride(store, what, ctx.config, CLI_ACTOR))).removed)
    return failed(ctx, `there is no override of ${what.kind} ${what.value}`);
  ctx.stdout.write(`Removed override: ${what.kind} ${what.value}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
  return 0;
}

function overridesText(overrides: OverrideJson[]): string {
  return `${formatTable([["KIND", "VALUE", "ACTION", "SINCE", "NOTE"], ...overrides.map(overrideRow)])}\n`;
}

export const run = commandRunner("overrides", { add, remove, list: answering(listOverrides, overridesText) });
