/**
 * The HTML of the account's own list (docs/accounts.md "The account's list"): a page of its
 * entries with the search and the Previous and Next links, the add form, the CSV import.
 */
import type { AccountListPage } from "../../operator/account-lists.js";
import { type Html, html } from "../../page-kit/html.js";
import { card, field, form, hidden, statusCard } from "../../page-kit/layout.js";
import { timeHtml } from "../../page-kit/readable.js";

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
function searchForm(search: string): Html {
  return form({
    action: "/account/lists",
    role: "search",
    fields: field({
      name: "search",
      label: "Search",
      type: "search",
      value: search,
      maxlength: 253,
      verbatim: true,
    }),
    button: "Search",
  });
}

/** Previous and Next, and where this page is; nothing when all fit on one. */
function pager(list: AccountListPage): Html | undefined {
  if (list.pages === 1) return undefined;
  const link = (page: number, rel: string, label: string) =>
    html`<li><a href="${listPageUrl(list.search, page)}" rel="${rel}">${label}</a></li>`;
  const previous = list.page > 1 && link(list.page - 1, "prev", "Previous");
  const next = list.page < list.pages && link(list.page + 1, "next", "Next");
  return html`<nav aria-label="Pages of your list"><ul class="nav">${previous}<li>Page ${count(list.page)} of ${count(list.pages)}</li>${next}</ul></nav>`;
}

/** Which entries are shown: "Entries 101–200 of 5,432 whose domain contains “shop”." */
function shown(list: AccountListPage, perPage: number): Html {
  const which = list.search === "" ? "" : ` whose domain contains “${list.search}”`;
  if (list.matching === 0) return html`<p>No entry${which}.</p>`;
  const first = (list.page - 1) * perPage + 1;
  const last = first + list.entries.length - 1;
  return html`<p>Entries ${count(first)}–${count(last)} of ${count(list.matching)}${which}.</p>`;
}

function entriesTable(list: AccountListPage, csrf: string, perPage: number): Html {
  if (list.total === 0)
    return html`<p class="muted">Your list is empty: your keys get the service's answers.</p>`;
  // A removal comes back to this page of this search.
  const back = viewFields(list.search, list.page).map(([name, value]) => hidden(name, value));
  const rows = list.entries.map((entry) => {
    const { domain } = entry;
    const remove = form({
      action: `/account/lists/${domain}/remove`,
      csrf,
      fields: back,
      button: "Remove",
      buttonLabel: `Remove ${domain}`,
      layout: "inline",
    });
    return html`<tr><td>${domain}</td><td>${entry.action === "block" ? "Block" : "Allow"}</td><td>${timeHtml(entry.created_at)}</td><td>${remove}</td></tr>`;
  });
  const table =
    rows.length > 0 &&
    html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Domain</th><th scope="col">Action</th><th scope="col">Added</th><th scope="col">Remove</th></tr></thead>
<tbody>${rows}</tbody></table></div>
`;
  return html`${searchForm(list.search)}
${shown(list, perPage)}
${table}${pager(list)}
<p><a href="/account/lists.csv" download>Export CSV</a></p>`;
}

function actionChoice(chosen: string, error: string | undefined): Html {
  const describedBy = error && html` aria-describedby="f-action-error"`;
  const radio = (value: string, label: string) =>
    html`<input id="f-action-${value}" name="action" type="radio" value="${value}"${chosen === value && " checked"}><label for="f-action-${value}">${label}</label>`;
  const errorLine = error && html`\n<p class="field-error" id="f-action-error">${error}</p>`;
  return html`<fieldset${describedBy}><legend>Action</legend>${radio("block", "Block")} ${radio("allow", "Allow")}</fieldset>${errorLine}`;
}

function addForm(csrf: string, forms: ListForms): Html {
  const domain = field({
    name: "domain",
    label: "Domain",
    value: forms.domain ?? "",
    error: forms.domainError,
    required: true,
    maxlength: 253,
    verbatim: true,
  });
  return form({
    action: "/account/lists",
    csrf,
    fields: html`${domain}\n${actionChoice(forms.action ?? "block", forms.actionError)}`,
    button: "Add",
  });
}

/** A size in MiB as the page writes it: 3 MiB. */
export function mebibytes(bytes: number): string {
  return `${count(Math.round((bytes / 1024 / 1024) * 10) / 10)} MiB`;
}

function importForm(csrf: string, error: string | undefined, limits: ListLimits): Html {
  const file = field({
    id: "f-csv",
    name: "file",
    label: "CSV file",
    type: "file",
    accept: ".csv,text/csv,text/plain",
    required: true,
    error,
  });
  return html`<p>A CSV of two columns, <code>domain,action</code> (action <code>block</code> or <code>allow</code>; a header row is optional), as <em>Export CSV</em> writes it. Its entries are added to your list, replacing the action of a domain already in it, all or none; your list holds at most ${count(limits.maxEntries)} domains, and the file may have at most ${mebibytes(limits.maxCsvBytes)}.</p>
${form({ action: "/account/lists/import", csrf, fields: file, button: "Import", multipart: true })}`;
}

/** The cards of the list page: `list` is a page of `perPage` entries. */
export function listCards(list: AccountListPage, csrf: string, forms: ListForms, limits: ListLimits): Html {
  const done = forms.done && html`${statusCard(forms.done)}\n`;
  const lead = html`<p>Domains your keys always get blocked, or never blocked by lists or heuristics. An entry holds for its domain and, for a registrable domain such as <code>example.com</code>, every name under it; it changes only the answers to your own keys, within a second, and the operator's overrides still win. Your list holds ${count(list.total)} of at most ${count(limits.maxEntries)} entries.</p>`;
  return html`${done}${card("list-heading", "Your list", html`${lead}\n${entriesTable(list, csrf, limits.perPage)}`)}
${card("add-heading", "Add a domain", addForm(csrf, forms))}
${card("import-heading", "Import a CSV", importForm(csrf, forms.csvError, limits))}`;
}
