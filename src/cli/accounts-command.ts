/**
 * `mailrisk accounts invite|list|show|suspend|resume|delete|reset-password` (docs/accounts.md):
 * the CLI's adapter of src/operator/accounts.ts. Exit codes: 0 done, 1 unknown account
 * (or exists, for invite), 2 bad arguments.
 */

import {
  type AccountJson,
  type AccountWithKeys,
  deleteAccount,
  inviteAccount,
  type LinkContext,
  listAccounts,
  type OneTimeLink,
  resetPasswordLink,
  setAccountState,
  showAccount,
} from "../operator/accounts.js";
import { CLI_ACTOR } from "../operator/audit.js";
import { createMailer } from "../service/mailer.js";
import type { Store } from "../store/types.js";
import { parseArguments, runSubcommand, usageError } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { formatTable } from "./table.js";
import { usageOf } from "./usage-text.js";
import { listing, withStore, writeJson } from "./with-store.js";

function linkContext(ctx: CliContext): LinkContext {
  const { signup, publicUrl, signupPlan } = ctx.config;
  return { signup, publicUrl, signupPlan, mailer: createMailer(ctx.config) };
}

function accountText(account: AccountJson): string {
  return `${account.email} (${account.id}): ${account.role}, plan ${account.plan}, ${account.state}, created ${account.created_at}`;
}

function linkText(link: OneTimeLink): string {
  const mailed = link.mailed ? ` (mailed to ${link.email})` : "";
  return `One-time link for ${link.email}, valid until ${link.expires_at}${mailed}:\n${link.url}\n`;
}

/** A form taking one account (id or email) and `--json`: the service's answer, as JSON or as `text`. */
function onAccount<T>(
  command: string,
  work: (store: Store, which: string, ctx: CliContext) => Promise<T>,
  text: (found: T) => string,
) {
  return async (args: string[], ctx: CliContext): Promise<number> => {
    const usage = usageOf("accounts", command);
    const result = parseArguments({ args, options: { json: { type: "boolean" } }, allowPositionals: true });
    if (!result.ok) return usageError(ctx, result.message, usage);
    const [which, ...extra] = result.parsed.positionals;
    if (which === undefined)
      return usageError(ctx, `accounts ${command} needs an account id or email`, usage);
    if (extra.length > 0)
      return usageError(
        ctx,
        `accounts ${command} takes one account; "${extra.join(" ")}" is too much`,
        usage,
      );
    const found = await withStore(ctx, (store) => work(store, which, ctx));
    if (result.parsed.values.json) writeJson(ctx, found);
    else ctx.stdout.write(text(found));
    return 0;
  };
}

async function invite(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("accounts", "invite");
  const options = {
    plan: { type: "string" },
    operator: { type: "boolean" },
    json: { type: "boolean" },
  } as const;
  const result = parseArguments({ args, options, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const [email, ...extra] = result.parsed.positionals;
  if (email === undefined) return usageError(ctx, "accounts invite needs an email address", usage);
  if (extra.length > 0)
    return usageError(ctx, `accounts invite takes one email; "${extra.join(" ")}" is too much`, usage);
  const { plan, operator, json } = result.parsed.values;
  const body = { email, ...(plan !== undefined ? { plan } : {}), ...(operator ? { operator } : {}) };
  const link = await withStore(ctx, (store) =>
    inviteAccount(store, body, linkContext(ctx), ctx.clock(), CLI_ACTOR),
  );
  if (json) writeJson(ctx, link);
  else ctx.stdout.write(linkText(link));
  return 0;
}

function accountsText(accounts: AccountJson[]): string {
  const rows = accounts.map((a) => [a.id, a.email, a.role, a.plan, a.state, a.created_at]);
  return `${formatTable([["ID", "EMAIL", "ROLE", "PLAN", "STATE", "CREATED"], ...rows])}\n`;
}

function showText(account: AccountWithKeys): string {
  const keys = account.keys.map(
    (key) => `  ${key.id} ${key.prefix}… ${key.revoked_at ? "revoked" : "live"}\n`,
  );
  return `${accountText(account)}\nkeys:\n${keys.join("") || "  none\n"}`;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  const subcommands = {
    invite,
    list: (rest: string[], c: CliContext) =>
      listing(rest, c, usageOf("accounts", "list"), listAccounts, accountsText),
    show: onAccount("show", (store, which) => showAccount(store, which), showText),
    suspend: onAccount(
      "suspend",
      (store, which) => setAccountState(store, which, "suspended", CLI_ACTOR),
      (a) => `Suspended ${accountText(a)}. ${TAKEN_BY_RUNNING_SERVERS}\n`,
    ),
    resume: onAccount(
      "resume",
      (store, which) => setAccountState(store, which, "active", CLI_ACTOR),
      (a) => `Resumed ${accountText(a)}. ${TAKEN_BY_RUNNING_SERVERS}\n`,
    ),
    delete: onAccount(
      "delete",
      (store, which) => deleteAccount(store, which, CLI_ACTOR),
      (a) => `Deleted ${accountText(a)}.\n`,
    ),
    "reset-password": onAccount(
      "reset-password",
      (store, which, c) => resetPasswordLink(store, which, linkContext(c), c.clock(), CLI_ACTOR),
      linkText,
    ),
  };
  return runSubcommand("accounts", subcommands, usageOf("accounts"), args, ctx);
}
