/**
 * The HTML of the account's own list (docs/accounts.md "The account's list"): a page of its
 * entries with the search and the Previous and Next links, the add form, the CSV import.
 */
import type { AccountListPage } from "../../operator/account-lists.js";
import { escapeHtml } from "../kit/layout.js";
import { timeHtml } from "../kit/readable.js";
import { field, form, section } from "./account-views.js";

/** What the add form and the import form say back: the values sent and the error of each. */
export interface ListForms {
  domain?: string;
  action?: string;
  domainError?: string;
  actionError?: string;
  csvError?: string;
  /** A line above the cards (`role="status"`): what was done. */
  done?: string;
}

/** What the page says of the list's bounds, and how many entries a page shows. */
export interface ListLimits {
  maxEntries: number;
  /** The largest CSV the import takes, in bytes. */
  maxCsvBytes: number;
  perPage: number;
}

/** A count as the page writes it: 10,000. */
function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** Which page of which search, as fields: none for the first page of all. */
function viewFields(search: string, page: number): [string, string][] {
  const fields: [string, string][] = [];
  if (search !== "") fields.push(["search", search]);
  if (page !== 1) fields.push(["page", String(page)]);
  return fields;
}

/** The page's address: `/account/lists`, with the search and the page when not the first of all. */
export function listPageUrl(search: string, page: number): string {
  const query = new URLSearchParams(viewFields(search, page)).toString();
  return query === "" ? "/account/lists" : `/account/lists?${query}`;
}

/** The search form: a GET, so a search is a link too. */
function searchForm(search: string): string {
  return `<form class="stack" method="get" action="/account/lists" role="search">
<label for="f-search">Search</label>
<input id="f-search" name="search" type="search" value="${escapeHtml(search)}" maxlength="253" spellcheck="false" autocapitalize="none" autocomplete="off">
<button type="submit">Search</button>
</form>`;
}

/** Previous and Next, and where this page is; nothing when all fit on one. */
function pager(list: AccountListPage): string {
  if (list.pages === 1) return "";
  const link = (page: number, rel: string, label: string) =>
    `<li><a href="${escapeHtml(listPageUrl(list.search, page))}" rel="${rel}">${label}</a></li>`;
  const previous = list.page > 1 ? link(list.page - 1, "prev", "Previous") : "";
  const next = list.page < list.pages ? link(list.page + 1, "next", "Next") : "";
  return `<nav aria-label="Pages of your list"><ul class="nav">${previous}<li>Page ${count(list.page)} of ${count(list.pages)}</li>${next}</ul></nav>`;
}

/** Which entries are shown: "Entries 101–200 of 5,432 whose domain contains “shop”." */
function shown(list: AccountListPage, perPage: number): string {
  const which = list.search === "" ? "" : ` whose domain contains “${escapeHtml(list.search)}”`;
  if (list.matching === 0) return `<p>No entry${which}.</p>`;
  const first = (list.page - 1) * perPage + 1;
  const last = first + list.entries.length - 1;
  return `<p>Entries ${count(first)}–${count(last)} of ${count(list.matching)}${which}.</p>`;
}

function entriesTable(list: AccountListPage, csrf: string, perPage: number): string {
  if (list.total === 0)
    return '<p class="muted">Your list is empty: your keys get the service\'s answers.</p>';
  // A removal comes back to this page of this search.
  const back = viewFields(list.search, list.page)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
    .join("");
  const rows = list.entries.map((entry) => {
    const domain = escapeHtml(entry.domain);
    const remove = `<form class="inline" method="post" action="/account/lists/${domain}/remove"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}">${back}<button type="submit" aria-label="Remove ${domain}">Remove</button></form>`;
    return `<tr><td>${domain}</td><td>${entry.action === "block" ? "Block" : "Allow"}</td><td>${timeHtml(entry.created_at)}</td><td>${remove}</td></tr>`;
  });
  const table =
    rows.length === 0
      ? ""
      : `<div class="table-wrap"><table>
<thead><tr><th scope="col">Domain</th><th scope="col">Action</th><th scope="col">Added</th><th scope="col">Remove</th></tr></thead>
<tbody>${rows.join("")}</tbody></table></div>
`;
  return `${searchForm(list.search)}
${shown(list, perPage)}
${table}${pager(list)}
<p><a href="/account/lists.csv" download>Export CSV</a></p>`;
}

function actionChoice(chosen: string, error: string | undefined): string {
  const describedBy = error ? ' aria-describedby="f-action-error"' : "";
  const radio = (value: string, label: string) =>
    `<input id="f-action-${value}" name="action" type="radio" value="${value}"${chosen === value ? " checked" : ""}><label for="f-action-${value}">${label}</label>`;
  const errorLine = error ? `\n<p class="field-error" id="f-action-error">${escapeHtml(error)}</p>` : "";
  return `<fieldset${describedBy}><legend>Action</legend>${radio("block", "Block")} ${radio("allow", "Allow")}</fieldset>${errorLine}`;
}

function addForm(csrf: string, forms: ListForms): string {
  const domain = field({
    name: "domain",
    label: "Domain",
    value: forms.domain ?? "",
    error: forms.domainError,
    extra: ' maxlength="253" spellcheck="false" autocapitalize="none"',
  });
  return form(
    "/account/lists",
    csrf,
    `${domain}\n${actionChoice(forms.action ?? "block", forms.actionError)}`,
    "Add",
  );
}

/** A size in MiB as the page writes it: 3 MiB. */
export function mebibytes(bytes: number): string {
  return `${count(Math.round((bytes / 1024 / 1024) * 10) / 10)} MiB`;
}

function importForm(csrf: string, error: string | undefined, limits: ListLimits): string {
  const describedBy = error ? ' aria-describedby="f-csv-error" aria-invalid="true"' : "";
  const errorLine = error ? `\n<p class="field-error" id="f-csv-error">${escapeHtml(error)}</p>` : "";
  return `<p>A CSV of two columns, <code>domain,action</code> (action <code>block</code> or <code>allow</code>; a header row is optional), as <em>Export CSV</em> writes it. Its entries are added to your list, replacing the action of a domain already in it, all or none; your list holds at most ${count(limits.maxEntries)} domains, and the file may have at most ${mebibytes(limits.maxCsvBytes)}.</p>
<form class="stack" method="post" action="/account/lists/import" enctype="multipart/form-data">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<label for="f-csv">CSV file</label>
<input id="f-csv" name="file" type="file" accept=".csv,text/csv,text/plain" required${describedBy}>${errorLine}
<button type="submit">Import</button>
</form>`;
}

/** The cards of the list page: `list` is a page of `perPage` entries. */
export function listCards(list: AccountListPage, csrf: string, forms: ListForms, limits: ListLimits): string {
  const done = forms.done ? `<p class="card" role="status">${escapeHtml(forms.done)}</p>\n` : "";
  const lead = `<p>Domains your keys always get blocked, or never blocked by lists or heuristics. An entry holds for its domain and, for a registrable domain such as <code>example.com</code>, every name under it; it changes only the answers to your own keys, within a second, and the operator's overrides still win. Your list holds ${count(list.total)} of at most ${count(limits.maxEntries)} entries.</p>`;
  return `${done}${section("list-heading", "Your list", `${lead}\n${entriesTable(list, csrf, limits.perPage)}`)}
${section("add-heading", "Add a domain", addForm(csrf, forms))}
${section("import-heading", "Import a CSV", importForm(csrf, forms.csvError, limits))}`;
}
