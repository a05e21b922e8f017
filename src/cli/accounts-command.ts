/** `mailrisk accounts …` (docs/accounts.md): adapts src/operator/accounts.ts; forms in commands.ts. */
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
import { commandRunner, type Given } from "./arguments.js";
import { type CliContext, TAKEN_BY_RUNNING_SERVERS } from "./context.js";
import { formatTable } from "./table.js";
import { answering } from "./with-store.js";

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

/** `invite`'s words and options as the admin API's body. */
function inviteBody(given: Given) {
  const plan = given.text("plan");
  return {
    email: given.words[0] ?? "",
    ...(plan !== undefined ? { plan } : {}),
    ...(given.flag("operator") ? { operator: true } : {}),
  };
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
  const twoFactor = account.two_factor ? "on" : "off";
  return `${accountText(account)}\nkeys:\n${keys.join("") || "  none\n"}own list: ${entries}\ntwo-factor: ${twoFactor}\n`;
}

export const run = commandRunner("accounts", {
  invite: answering(
    (store, given, ctx) =>
      inviteAccount(store, inviteBody(given), linkContextOf(ctx.config), ctx.clock(), CLI_ACTOR),
    linkText,
  ),
  list: answering((store, given) => listAccounts(store, given.text("search")), accountsText),
  show: answering((store, { words: [account = ""] }) => showAccount(store, account), showText),
  "set-plan": answering(
    (store, { words: [account = "", plan = ""] }) => setAccountPlan(store, account, plan, CLI_ACTOR),
    (a) => `Moved ${accountText(a)}. ${TAKEN_BY_RUNNING_SERVERS}\n`,
  ),
  suspend: answering(
    (store, { words: [account = ""] }) => setAccountState(store, account, "suspended", CLI_ACTOR),
    (a) => `Suspended ${accountText(a)}. ${TAKEN_BY_RUNNING_SERVERS}\n`,
  ),
  resume: answering(
    (store, { words: [account = ""] }) => setAccountState(store, account, "active", CLI_ACTOR),
    (a) => `Resumed ${accountText(a)}. ${TAKEN_BY_RUNNING_SERVERS}\n`,
  ),
  delete: answering(
    (store, { words: [account = ""] }) => deleteAccount(store, account, CLI_ACTOR),
    (a) => `Deleted ${accountText(a)}.\n`,
  ),
  "reset-password": answering(
    (store, { words: [account = ""] }, ctx) =>
      resetPasswordLink(store, account, linkContextOf(ctx.config), ctx.clock(), CLI_ACTOR),
    linkText,
  ),
  "reset-2fa": answering(
    (store, { words: [account = ""] }) => resetTwoFactor(store, account, CLI_ACTOR),
    (a) => `Two-factor log-in is off for ${accountText(a)}.\n`,
  ),
});
