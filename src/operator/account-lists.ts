/**
 * An account's own allow and block list (docs/accounts.md "The account's list"): the
 * domains the account wants always blocked or always allowed for its own keys, at most
 * MAX_ACCOUNT_LIST_ENTRIES, added one by one or imported from a `domain,action` CSV (all
 * or nothing) and exported the same way. A domain is normalised as the operator's domain
 * overrides are, and matches the same way: the entry of the checked domain, else of its
 * base domain (so `example.org` covers `mail.example.org`). Every change is the account's
 * own, audited with it as the actor, and holds on every instance within a second (the
 * change signal); the operator's overrides still win.
 */
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { type Static, Type } from "typebox";
import { parseDomain } from "../core/input.js";
import { formatTimestamp } from "../core/record.js";
import type { NameRules } from "../core/reserved-names.js";
import { Timestamp } from "../core/schema-types.js";
import { CsvTooLarge, DEFAULT_CSV_LIMITS } from "../service/csv/csv-error.js";
import { LineMeter } from "../service/csv/line-meter.js";
import type { Account, AccountListAction, AccountListEntry, Store } from "../store/index.js";
import { type Actor, audited } from "./audit.js";
import { Refusal } from "./refusal.js";

/** The entries an account's list holds at most. */
export const MAX_ACCOUNT_LIST_ENTRIES = 10_000;
/** The bytes an imported CSV may have: the largest list with long domains and room for quotes and CRLF. */
export const MAX_ACCOUNT_LIST_CSV_BYTES = 3 * 1024 * 1024;

/** What an import over MAX_ACCOUNT_LIST_CSV_BYTES is told (`body_too_large`), whether the CSV or the request carrying it is too large. */
export function csvTooLarge(): Refusal {
  return new Refusal(
    "body_too_large",
    `The CSV file is larger than the import's limit of ${MAX_ACCOUNT_LIST_CSV_BYTES / 1024 / 1024} MiB; split it into smaller files`,
  );
}

const ACTIONS: readonly AccountListAction[] = ["block", "allow"];

export const AccountListEntrySchema = Type.Object({
  domain: Type.String({
    description: "The domain, normalised; it also covers the subdomains of a base domain.",
  }),
  action: Type.Union([Type.Literal("block"), Type.Literal("allow")], {
    description: "block: always blocked for the account's keys; allow: never blocked by lists or heuristics.",
  }),
  created_at: Timestamp,
});
export type AccountListEntryJson = Static<typeof AccountListEntrySchema>;

type ListStore = Pick<Store, "accountLists" | "transaction">;

function entryJson(entry: AccountListEntry): AccountListEntryJson {
  return { domain: entry.domain, action: entry.action, created_at: formatTimestamp(entry.createdAt) };
}

function actorOf(account: Account): Actor {
  return { kind: "account", email: account.email };
}

/** The domain as the check sees it (`invalid_domain`). */
function normalisedDomain(value: string, rules: NameRules): string {
  const parsed = parseDomain(value, rules);
  if (!parsed.ok) throw new Refusal("invalid_domain", `"${value}" is not a domain: ${parsed.problem.detail}`);
  return parsed.input.domain;
}

/** `block` or `allow`, in any case (`invalid_body`). */
function actionOf(value: string): AccountListAction {
  const action = value.trim().toLowerCase();
  if (!(ACTIONS as readonly string[]).includes(action))
    throw new Refusal("invalid_body", `"${value}" is no action: say block or allow`);
  return action as AccountListAction;
}

export async function listAccountList(
  store: Pick<Store, "accountLists">,
  account: Account,
): Promise<AccountListEntryJson[]> {
  return (await store.accountLists.listEntries(account.id)).entries.map(entryJson);
}

/** One page of an account's list (`pageAccountList`). */
export interface AccountListPage {
  entries: AccountListEntryJson[];
  /** The entries the list holds. */
  total: number;
  /** The entries whose domain contains `search` (all of them without one). */
  matching: number;
  /** What was searched, as given ("": nothing). */
  search: string;
  /** This page's number, from 1, and how many the matching entries fill (at least 1). */
  page: number;
  pages: number;
}

/**
 * The account's entries by domain, `perPage` at a time: page `page` (from 1; one past the
 * last shows the last) of those whose domain contains `search` (ignoring case; "": all).
 */
export async function pageAccountList(
  store: Pick<Store, "accountLists">,
  account: Account,
  { search, page }: { search: string; page: number },
  perPage: number,
): Promise<AccountListPage> {
  const wanted = search.trim();
  const find = (at: number) =>
    store.accountLists.findEntries(account.id, {
      search: wanted === "" ? null : wanted,
      offset: (at - 1) * perPage,
      limit: perPage,
    });
  let at = Number.isSafeInteger(page) && page >= 1 ? page : 1;
  let found = await find(at);
  const pages = Math.max(1, Math.ceil(found.matching / perPage));
  if (at > pages) {
    at = pages;
    found = await find(at);
  }
  return {
    entries: found.entries.map(entryJson),
    total: found.total,
    matching: found.matching,
    search: wanted,
    page: at,
    pages: Math.max(1, Math.ceil(found.matching / perPage)),
  };
}

/** Adds a domain to the account's list, or replaces the action of its entry (`too_many_entries` when full). */
export async function addAccountListEntry(
  store: ListStore,
  account: Account,
  input: { domain: string; action: string },
  now: Date,
  rules: NameRules,
): Promise<AccountListEntryJson> {
  const entry = {
    domain: normalisedDomain(input.domain, rules),
    action: actionOf(input.action),
    createdAt: now,
  };
  return audited(
    store,
    actorOf(account),
    (trx) => trx.accountLists.setEntry(account.id, entry, MAX_ACCOUNT_LIST_ENTRIES),
    (saved) => ({
      action: "account_list.add",
      entity: { kind: "account_list", id: account.id },
      detail: { domain: saved.domain, action: saved.action },
    }),
  ).then(entryJson);
}

/** Removes the domain's entry from the account's list; `not_found` when it has none (another account's included). */
export async function removeAccountListEntry(
  store: ListStore,
  account: Account,
  domain: string,
  rules: NameRules,
): Promise<void> {
  const target = normalisedDomain(domain, rules);
  const removed = await audited(
    store,
    actorOf(account),
    (trx) => trx.accountLists.removeEntry(account.id, target),
    (done) =>
      done
        ? {
            action: "account_list.remove",
            entity: { kind: "account_list", id: account.id },
            detail: { domain: target },
          }
        : undefined,
  );
  if (!removed) throw new Refusal("not_found", `There is no entry of ${target} in your account's list.`);
}

/**
 * The entries of a `domain,action` CSV (a header row `domain,action` is optional; a later
 * row of a domain replaces an earlier one), or `invalid_body` naming the first bad line.
 */
export function readAccountListCsv(text: string, rules: NameRules, now: Date): AccountListEntry[] {
  let rows: string[][];
  try {
    // A line longer than a record may be refused before the parser holds it, as every CSV path does.
    new LineMeter(DEFAULT_CSV_LIMITS.maxRecordBytes).feed(Buffer.from(text));
    rows = parse(text, {
      bom: true,
      skip_empty_lines: true,
      trim: true,
      relax_column_count: true,
      max_record_size: DEFAULT_CSV_LIMITS.maxRecordBytes,
    });
  } catch (error) {
    if (error instanceof CsvTooLarge)
      throw new Refusal("body_too_large", `The CSV was refused: ${error.message}`);
    throw new Refusal("invalid_body", `The CSV could not be read: ${(error as Error).message}`);
  }
  const first = rows[0];
  const header = first?.[0]?.toLowerCase() === "domain" && first[1]?.toLowerCase() === "action";
  const entries = new Map<string, AccountListEntry>();
  rows.forEach((row, index) => {
    if (index === 0 && header) return;
    const line = `line ${index + 1}`;
    if (row.length !== 2) throw new Refusal("invalid_body", `${line}: expected two cells, domain,action`);
    const [domain = "", action = ""] = row;
    try {
      const entry = { domain: normalisedDomain(domain, rules), action: actionOf(action), createdAt: now };
      entries.delete(entry.domain);
      entries.set(entry.domain, entry);
    } catch (error) {
      if (error instanceof Refusal) throw new Refusal(error.code, `${line}: ${error.message}`);
      throw error;
    }
  });
  return [...entries.values()];
}

/**
 * Adds (or replaces) every entry of a `domain,action` CSV at once, or none: a bad line, or
 * more than MAX_ACCOUNT_LIST_ENTRIES in the list after it (`too_many_entries`), changes nothing.
 * How many entries it held.
 */
export async function importAccountList(
  store: ListStore,
  account: Account,
  csv: string,
  now: Date,
  rules: NameRules,
): Promise<{ imported: number }> {
  if (Buffer.byteLength(csv) > MAX_ACCOUNT_LIST_CSV_BYTES) throw csvTooLarge();
  const entries = readAccountListCsv(csv, rules, now);
  if (entries.length > MAX_ACCOUNT_LIST_ENTRIES)
    throw new Refusal(
      "too_many_entries",
      `The CSV holds ${entries.length} domains; an account's list holds at most ${MAX_ACCOUNT_LIST_ENTRIES}.`,
    );
  const imported = await audited(
    store,
    actorOf(account),
    (trx) => trx.accountLists.importEntries(account.id, entries, MAX_ACCOUNT_LIST_ENTRIES),
    (count) =>
      count > 0
        ? {
            action: "account_list.import",
            entity: { kind: "account_list", id: account.id },
            detail: { entries: count },
          }
        : undefined,
  );
  return { imported };
}

/** The account's list as a `domain,action` CSV with its header, which `importAccountList` reads back. */
export async function exportAccountList(
  store: Pick<Store, "accountLists">,
  account: Account,
): Promise<string> {
  const { entries } = await store.accountLists.listEntries(account.id);
  return stringify([["domain", "action"], ...entries.map((entry) => [entry.domain, entry.action])], {
    record_delimiter: "\r\n",
  });
}
