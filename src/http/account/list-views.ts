/** The HTML of the account's own list (docs/accounts.md "The account's list"): its entries, the add form, the CSV import. */
import type { AccountListEntryJson } from "../../operator/account-lists.js";
import { escapeHtml } from "../pages/layout.js";
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

function entriesTable(entries: readonly AccountListEntryJson[], csrf: string): string {
  if (entries.length === 0)
    return '<p class="muted">Your list is empty: your keys get the service\'s answers.</p>';
  const rows = entries.map((entry) => {
    const domain = escapeHtml(entry.domain);
    const remove = `<form class="inline" method="post" action="/account/lists/${domain}/remove"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><button type="submit" aria-label="Remove ${domain}">Remove</button></form>`;
    return `<tr><td>${domain}</td><td>${entry.action === "block" ? "Block" : "Allow"}</td><td>${escapeHtml(entry.created_at)}</td><td>${remove}</td></tr>`;
  });
  return `<div class="table-wrap"><table>
<thead><tr><th scope="col">Domain</th><th scope="col">Action</th><th scope="col">Added</th><th scope="col">Remove</th></tr></thead>
<tbody>${rows.join("")}</tbody></table></div>
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

function importForm(csrf: string, error: string | undefined, maxEntries: number): string {
  const describedBy = error ? ' aria-describedby="f-csv-error" aria-invalid="true"' : "";
  const errorLine = error ? `\n<p class="field-error" id="f-csv-error">${escapeHtml(error)}</p>` : "";
  return `<p>A CSV of two columns, <code>domain,action</code> (action <code>block</code> or <code>allow</code>; a header row is optional), as <em>Export CSV</em> writes it. Its entries are added to your list, replacing the action of a domain already in it, all or none; your list holds at most ${maxEntries} domains.</p>
<form class="stack" method="post" action="/account/lists/import" enctype="multipart/form-data">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<label for="f-csv">CSV file</label>
<input id="f-csv" name="file" type="file" accept=".csv,text/csv,text/plain" required${describedBy}>${errorLine}
<button type="submit">Import</button>
</form>`;
}

/** The cards of the list page. */
export function listCards(
  entries: readonly AccountListEntryJson[],
  csrf: string,
  forms: ListForms,
  maxEntries: number,
): string {
  const done = forms.done ? `<p class="card" role="status">${escapeHtml(forms.done)}</p>\n` : "";
  const lead = `<p>Domains your keys always get blocked, or never blocked by lists or heuristics. An entry holds for its domain and, for a registrable domain such as <code>example.com</code>, every name under it; it changes only the answers to your own keys, within a second, and the operator's overrides still win. ${entries.length} of ${maxEntries} entries.</p>`;
  return `${done}${section("list-heading", "Your list", `${lead}\n${entriesTable(entries, csrf)}`)}
${section("add-heading", "Add a domain", addForm(csrf, forms))}
${section("import-heading", "Import a CSV", importForm(csrf, forms.csvError, maxEntries))}`;
}
