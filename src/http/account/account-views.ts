/**
 * The HTML of the account pages (docs/accounts.md): labelled fields with their errors next
 * to them, a CSRF token in every form, the same layout and stylesheet as the result pages.
 */

import type { AccountJson } from "../../operator/accounts.js";
import type { KeyWithUsage } from "../../operator/key-usage.js";
import type { KeyJson } from "../../operator/keys.js";
import type { Report } from "../../store/index.js";
import { escapeHtml, renderPage } from "../pages/layout.js";
import { readableCount, timeHtml } from "../pages/readable.js";
import { secretCard } from "./secret-views.js";

export interface Field {
  name: string;
  label: string;
  type?: "text" | "email" | "password";
  value?: string;
  error?: string;
  autocomplete?: string;
  extra?: string;
}

/** A labelled input with its error beside it. */
export function field({
  name,
  label,
  type = "text",
  value = "",
  error,
  autocomplete = "off",
  extra = "",
}: Field): string {
  const id = `f-${name}`;
  const describedBy = error ? ` aria-describedby="${id}-error" aria-invalid="true"` : "";
  const errorLine = error ? `\n<p class="field-error" id="${id}-error">${escapeHtml(error)}</p>` : "";
  return `<label for="${id}">${escapeHtml(label)}</label>
<input id="${id}" name="${name}" type="${type}" value="${escapeHtml(value)}" autocomplete="${autocomplete}" required${extra}${describedBy}>${errorLine}`;
}

/** A POST form with its CSRF token, its fields and one button. */
export function form(action: string, csrf: string, fields: string, button: string, extra = ""): string {
  return `<form class="stack" method="post" action="${escapeHtml(action)}">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
${fields}${extra}
<button type="submit">${escapeHtml(button)}</button>
</form>`;
}

export const emailField = (value = "", error?: string): string =>
  field({
    name: "email",
    label: "Email",
    type: "email",
    value,
    error,
    autocomplete: "username",
    extra: ' maxlength="254"',
  });
export const passwordField = (error?: string, name = "password", autocomplete = "current-password"): string =>
  field({ name, label: "Password", type: "password", error, autocomplete, extra: ' maxlength="200"' });
export const codeField = (error?: string): string =>
  field({
    name: "code",
    label: "Code",
    error,
    autocomplete: "one-time-code",
    extra: ' inputmode="numeric" pattern="[0-9]{8}" maxlength="8"',
  });

/** A page of the sign-up and log-in flow: a heading, a lead sentence and the form. */
export function personPage(title: string, lead: string, body: string): string {
  return renderPage({
    title: `${title} — mailrisk`,
    description: lead,
    noindex: true,
    referrer: "same-origin",
    main: `<section class="card" aria-labelledby="page-heading">
<h1 id="page-heading">${escapeHtml(title)}</h1>
<p class="lead">${escapeHtml(lead)}</p>
${body}
</section>`,
  });
}

/** A page of the console: its navigation (with the log-out button) above the cards; `script` as `renderPage` takes it. */
export function consolePage(
  title: string,
  account: AccountJson,
  csrf: string,
  cards: string,
  script?: string,
): string {
  const links = [
    ["/account", "Overview"],
    ["/account/keys", "Keys"],
    ["/account/jobs", "Jobs"],
    ["/account/reports", "Reports"],
    ["/account/lists", "Lists"],
    ["/account/security", "Security"],
    // An operator's way to the desk (and the desk links back to /account).
    ...(account.role === "operator" ? [["/console", "Operator's desk"]] : []),
  ]
    .map(([href, text]) => `<li><a href="${href}">${text}</a></li>`)
    .join("");
  const logout = `<li><form class="inline" method="post" action="/logout"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><button type="submit">Log out</button></form></li>`;
  return renderPage({
    title: `${title} — mailrisk`,
    description: `${title} of ${account.email}`,
    noindex: true,
    referrer: "same-origin",
    ...(script === undefined ? {} : { script }),
    main: `<h1>${escapeHtml(title)}</h1>
<p class="muted">${escapeHtml(account.email)} · plan ${escapeHtml(account.plan)}</p>
<nav aria-label="Account"><ul class="nav">${links}${logout}</ul></nav>
${cards}`,
  });
}

export function section(id: string, heading: string, body: string): string {
  return `<section class="card" aria-labelledby="${id}">
<h2 id="${id}">${escapeHtml(heading)}</h2>
${body}
</section>`;
}

/** The quota as a bar: used of the limit (a check each: an API request or a list item), and when it resets. */
export function quotaBar(usage: KeyWithUsage["usage"]): string {
  const limit = usage.limit === null ? "unlimited" : readableCount(usage.limit);
  const meter =
    usage.limit === null
      ? ""
      : `<meter id="quota-meter" min="0" max="${usage.limit}" value="${usage.used}" aria-label="Checks used this period">${readableCount(usage.used)} of ${limit}</meter>`;
  return `${meter}
<p><span data-quota-used>${readableCount(usage.used)}</span> of ${limit} checks used this period (an API request or a list item is one check each); it resets ${timeHtml(usage.reset_at)}.</p>`;
}

function keyKind(key: KeyJson): string {
  return key.publishable ? "publishable" : "secret";
}

/** A key's chart heading: its name, and `(revoked)` once it no longer works (revoked, or rolled and ended). */
export function keyHeading(key: Pick<KeyJson, "id" | "name" | "revoked_at">, now: Date): string {
  const ended = key.revoked_at !== null && Date.parse(key.revoked_at) <= now.getTime();
  return `Key ${key.name ?? key.id}${ended ? " (revoked)" : ""}`;
}

/**
 * The account's keys; Roll and Revoke are links to a page that asks to confirm (a second
 * step, no script), styled apart: Roll quiet, Revoke red.
 */
export function keysTable(keys: readonly KeyJson[], now: Date): string {
  if (keys.length === 0) return '<p class="muted">No keys yet.</p>';
  const rows = keys.map((key) => {
    const name = escapeHtml(key.name ?? key.id);
    const path = `/account/keys/${encodeURIComponent(key.id)}`;
    const revoked = key.revoked_at !== null && new Date(key.revoked_at) <= now;
    const stateCell = revoked
      ? `<span class="state">revoked</span> ${timeHtml(key.revoked_at ?? "")}`
      : key.revoked_at
        ? `<span class="state">active</span> until ${timeHtml(key.revoked_at)}`
        : '<span class="state">active</span>';
    const actions = revoked
      ? ""
      : `<a class="button quiet" href="${path}/roll" aria-label="Roll ${name}">Roll</a> <a class="button danger" href="${path}/revoke" aria-label="Revoke ${name}">Revoke</a>`;
    return `<tr><td><a href="${path}">${name}</a></td><td>${keyKind(key)}</td><td><code>${escapeHtml(key.prefix)}…</code></td><td>${escapeHtml(key.origins.join(", ") || "—")}</td><td>${timeHtml(key.created_at)}</td><td>${stateCell}</td><td class="actions">${actions}</td></tr>`;
  });
  return `<div class="table-wrap"><table class="readable">
<thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Prefix</th><th scope="col">Origins</th><th scope="col">Created</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows.join("")}</tbody></table></div>`;
}

/** A new key's secret, shown once, with its copy button and a curl line. */
export function createdSecret(secret: string, publicUrl: string | null): string {
  return secretCard({
    id: "secret-heading",
    heading: "Your new key",
    lead: "Copy it now: it is shown only this once.",
    secret,
    publicUrl,
  });
}

/** The account's first key, shown once right after sign-up or an accepted invitation. */
export function firstKeyCard(secret: string, publicUrl: string | null): string {
  return secretCard({
    id: "first-key-heading",
    heading: "Your first key",
    lead: "Your account made this secret key for the API. Copy it now: it is shown only this once (make more under Keys).",
    secret,
    publicUrl,
  });
}

export function createKeyForm(csrf: string, error?: string): string {
  const fields = `${field({ name: "name", label: "Name", extra: ' maxlength="200"' }).replace(" required", "")}
<label for="f-kind">Kind</label>
<select id="f-kind" name="kind"><option value="secret">secret (servers)</option><option value="publishable">publishable (web pages)</option></select>
${field({ name: "origins", label: "Origins (publishable keys: space-separated)", error, extra: ' maxlength="2000"' }).replace(" required", "")}`;
  return form("/account/keys", csrf, fields, "Create key");
}

export function reportsTable(reports: readonly Report[]): string {
  if (reports.length === 0) return '<p class="muted">Your keys have filed no report.</p>';
  const rows = reports.map(
    (report) =>
      `<tr><td>${escapeHtml(report.id)}</td><td>${escapeHtml(report.domain)}</td><td>${report.expected}</td><td>${report.status}</td><td>${timeHtml(report.filedAt)}</td><td>${escapeHtml(report.reviewNote ?? "")}</td></tr>`,
  );
  return `<div class="table-wrap"><table class="readable">
<thead><tr><th scope="col">Report</th><th scope="col">Domain</th><th scope="col">Expected</th><th scope="col">State</th><th scope="col">Filed</th><th scope="col">Review note</th></tr></thead>
<tbody>${rows.join("")}</tbody></table></div>`;
}
