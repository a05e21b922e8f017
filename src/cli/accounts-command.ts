/**
 * `mailrisk accounts invite|list|show|set-plan|suspend|resume|delete|reset-password|reset-2fa`
 * (docs/accounts.md): the CLI's adapter of src/operator/accounts.ts. Exit codes: 0 done,
 * 1 unknown account or plan (or exists, for invite), 2 bad arguments.
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
  setAccountPlan,
  setAccountState,
  showAccount,
} from "../operator/accounts.js";
import { CLI_ACTOR } from "../operator/audit.js";
import { resetTwoFactor } from "../operator/two-factor.js";
import { createMailer } from "../service/accounts/mailer.js";
import type { Store } from "../store/index.js";
import { parseArguments, runSubcommand, usageError } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { formatTable } from "./table.js";
import { usageOf } from "./usage-text.js";
import { withStore, writeJson } from "./with-store.js";

function linkContext(ctx: CliContext): LinkContext {
  const { signup, publicUrl, signupPlan } = ctx.config;
  return { signup, publicUrl, signupPlan, mailer: createMailer(ctx.config) };
}

function accountText(account: AccountJson): string {
  return `${account.email} (${account.id}): ${account.role}, plan ${account.plan}, ${account.state}, created ${account.created_at}`;
}

/**
 * A link without PUBLIC_URL is a bare path: the text says which address to put in front
 * of it (the one people reach the server at; HOST and PORT's as a guess) and how to stop that.
 */
function linkText(link: OneTimeLink, ctx: CliContext): string {
  const mailed = link.mailed ? ` (mailed to ${link.email})` : "";
  const said = `One-time link for ${link.email}, valid until ${link.expires_at}${mailed}:\n${link.url}\n`;
  if (!link.url.startsWith("/")) return said;
  const { host, port } = ctx.config;
  const guess = `http://${host.includes(":") ? `[${host}]` : host}:${port}${link.url}`;
  return `${said}PUBLIC_URL is not set, so this is only a path: put the address people reach this server at in front of it (e.g. ${guess} from HOST and PORT, or your https address), or set PUBLIC_URL to have whole links.\n`;
}

/** A form taking one account (id or email) and `--json`: the service's answer, as JSON or as `text`. */
function onAccount<T>(
  command: string,
  work: (store: Store, which: string, ctx: CliContext) => Promise<T>,
  text: (found: T, ctx: CliContext) => string,
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
    else ctx.stdout.write(text(found, ctx));
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
  else ctx.stdout.write(linkText(link, ctx));
  return 0;
}

async function list(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("accounts", "list");
  const options = { search: { type: "string" }, json: { type: "boolean" } } as const;
  const result = parseArguments({ args, options, allowPositionals: false });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const { search, json } = result.parsed.values;
  const found = await withStore(ctx, (store) => listAccounts(store, search));
  if (json) writeJson(ctx, found);
  else ctx.stdout.write(accountsText(found));
  return 0;
}

async function setPlan(args: string[], ctx: CliContext): Promise<number> {
  const usage = usageOf("accounts", "set-plan");
  const result = parseArguments({ args, options: { json: { type: "boolean" } }, allowPositionals: true });
  if (!result.ok) return usageError(ctx, result.message, usage);
  const [which, plan, ...extra] = result.parsed.positionals;
  if (which === undefined || plan === undefined)
    return usageError(ctx, "accounts set-plan needs an account id or email and a plan", usage);
  if (extra.length > 0)
    return usageError(
      ctx,
      `accounts set-plan takes an account and a plan; "${extra.join(" ")}" is too much`,
      usage,
    );
  const account = await withStore(ctx, (store) => setAccountPlan(store, which, plan, CLI_ACTOR));
  if (result.parsed.values.json) writeJson(ctx, account);
  else ctx.stdout.write(`Moved ${accountText(account)}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
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
  const entries = account.list_entries === 1 ? "1 entry" : `${account.list_entries} entries`;
  return `${accountText(account)}\nkeys:\n${keys.join("") || "  none\n"}own list: ${entries}\n`;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  const subcommands = {
    invite,
    list,
    show: onAccount("show", (store, which) => showAccount(store, which), showText),
    "set-plan": setPlan,
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
    "reset-2fa": onAccount(
      "reset-2fa",
      (store, which) => resetTwoFactor(store, which, CLI_ACTOR),
      (a) => `Two-factor log-in is off for ${accountText(a)}.\n`,
    ),
  };
  return runSubcommand("accounts", subcommands, usageOf("accounts"), args, ctx);
}
