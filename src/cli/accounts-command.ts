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
  linkContextOf,
  listAccounts,
  type OneTimeLink,
  resetPasswordLink,
  setAccountPlan,
  setAccountState,
  showAccount,
} from "../operator/accounts.js";
import { CLI_ACTOR } from "../operator/audit.js";
import { resetTwoFactor } from "../operator/two-factor.js";
import type { Store } from "../store/index.js";
import { commandRunner, type Given, type Handler } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { formatTable } from "./table.js";
import { answer, withStore } from "./with-store.js";

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
  work: (store: Store, which: string, ctx: CliContext) => Promise<T>,
  text: (found: T, ctx: CliContext) => string,
): Handler<CliContext> {
  return async (given, ctx) => {
    const found = await withStore(ctx, (store) => work(store, given.words[0] ?? "", ctx));
    return answer(ctx, given, found, (value) => text(value, ctx));
  };
}

async function invite(given: Given, ctx: CliContext): Promise<number> {
  const plan = given.text("plan");
  const body = {
    email: given.words[0] ?? "",
    ...(plan !== undefined ? { plan } : {}),
    ...(given.flag("operator") ? { operator: true } : {}),
  };
  const link = await withStore(ctx, (store) =>
    inviteAccount(store, body, linkContextOf(ctx.config), ctx.clock(), CLI_ACTOR),
  );
  return answer(ctx, given, link, (value) => linkText(value, ctx));
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

export const run = commandRunner("accounts", {
  invite,
  list: async (given, ctx) =>
    answer(
      ctx,
      given,
      await withStore(ctx, (store) => listAccounts(store, given.text("search"))),
      accountsText,
    ),
  show: onAccount((store, which) => showAccount(store, which), showText),
  "set-plan": async (given, ctx) => {
    const [which = "", plan = ""] = given.words;
    const account = await withStore(ctx, (store) => setAccountPlan(store, which, plan, CLI_ACTOR));
    return answer(ctx, given, account, (a) => `Moved ${accountText(a)}. ${TAKEN_BY_RUNNING_SERVERS}\n`);
  },
  suspend: onAccount(
    (store, which) => setAccountState(store, which, "suspended", CLI_ACTOR),
    (a) => `Suspended ${accountText(a)}. ${TAKEN_BY_RUNNING_SERVERS}\n`,
  ),
  resume: onAccount(
    (store, which) => setAccountState(store, which, "active", CLI_ACTOR),
    (a) => `Resumed ${accountText(a)}. ${TAKEN_BY_RUNNING_SERVERS}\n`,
  ),
  delete: onAccount(
    (store, which) => deleteAccount(store, which, CLI_ACTOR),
    (a) => `Deleted ${accountText(a)}.\n`,
  ),
  "reset-password": onAccount(
    (store, which, c) => resetPasswordLink(store, which, linkContextOf(c.config), c.clock(), CLI_ACTOR),
    linkText,
  ),
  "reset-2fa": onAccount(
    (store, which) => resetTwoFactor(store, which, CLI_ACTOR),
    (a) => `Two-factor log-in is off for ${accountText(a)}.\n`,
  ),
});
