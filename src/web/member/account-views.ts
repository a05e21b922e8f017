/**
 * The HTML of the account pages (docs/accounts.md): labelled fields with their errors next
 * to them, a CSRF token in every form, the same layout and stylesheet as the result pages.
 */

import type { AccountJson } from "../../operator/accounts.js";
import type { KeyWithUsage } from "../../operator/key-usage.js";
import type { KeyJson } from "../../operator/keys.js";
import { type Html, type HtmlValue, html } from "../../page-kit/html.js";
import { areaPage, field, form, renderPage } from "../../page-kit/layout.js";
import { readableCount, timeHtml } from "../../page-kit/readable.js";
import type { Report } from "../../store/index.js";
import { secretCard } from "./secret-views.js";

/** The email field of the person pages. */
export const emailField = (value = "", error?: string): Html =>
  field({
    name: "email",
    label: "Email",
    type: "email",
    value,
    error,
    autocomplete: "username",
    required: true,
    maxlength: 254,
  });

/** A password field: the current one (log-in) or a new one (`new-password`), labelled `label`. */
export const passwordField = (
  error?: string,
  name = "password",
  autocomplete = "current-password",
  label = "Password",
): Html => field({ name, label, type: "password", error, autocomplete, required: true, maxlength: 200 });

/** A mailed code's field: eight digits. */
export const codeField = (error?: string): Html =>
  field({
    name: "code",
    label: "Code",
    error,
    autocomplete: "one-time-code",
    required: true,
    inputmode: "numeric",
    pattern: "[0-9]{8}",
    maxlength: 8,
  });

/** A page of the sign-up and log-in flow: a heading, a lead sentence and the form. */
export function personPage(title: string, lead: string, body: HtmlValue): Html {
  return renderPage({
    title: `${title} — mailrisk`,
    description: lead,
    noindex: true,
    main: html`<section class="card" aria-labelledby="page-heading">
<h1 id="page-heading">${title}</h1>
<p class="lead">${lead}</p>
${body}
</section>`,
  });
}

/** The account's pages, in the order their navigation lists them. */
const ACCOUNT_PAGES = [
  ["/account", "Overview"],
  ["/account/keys", "Keys"],
  ["/account/jobs", "Jobs"],
  ["/account/reports", "Reports"],
  ["/account/lists", "Lists"],
  ["/account/security", "Security"],
] as const;

/** A page of the account, in the one layout of the signed-in areas; `script` as `renderPage` takes it. */
export function accountPage(
  title: string,
  account: AccountJson,
  csrf: string,
  cards: HtmlValue,
  script?: string,
): Html {
  return areaPage({
    title,
    area: "mailrisk",
    description: `${title} of ${account.email}`,
    signedIn: html`${account.email} · plan ${account.plan}`,
    navLabel: "Account",
    // An operator's way to the desk (and the desk links back to /account).
    links: account.role === "operator" ? [...ACCOUNT_PAGES, ["/console", "Operator's desk"]] : ACCOUNT_PAGES,
    navEnd: form({ action: "/logout", csrf, fields: undefined, button: "Log out", layout: "inline" }),
    main: cards,
    script,
  });
}

/** The quota as a bar: used of the limit (a check each: an API request or a list item), and when it resets. */
export function quotaBar(usage: KeyWithUsage["usage"]): Html {
  const limit = usage.limit === null ? "unlimited" : readableCount(usage.limit);
  const meter =
    usage.limit !== null &&
    html`<meter id="quota-meter" min="0" max="${usage.limit}" value="${usage.used}" aria-label="Checks used this period">${readableCount(usage.used)} of ${limit}</meter>`;
  return html`${meter}
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
export function keysTable(keys: readonly KeyJson[], now: Date): Html {
  if (keys.length === 0) return html`<p class="muted">No keys yet.</p>`;
  const rows = keys.map((key) => {
    const name = key.name ?? key.id;
    const path = `/account/keys/${encodeURIComponent(key.id)}`;
    const revoked = key.revoked_at !== null && new Date(key.revoked_at) <= now;
    const stateCell = revoked
      ? html`<span class="state">revoked</span> ${timeHtml(key.revoked_at ?? "")}`
      : key.revoked_at
        ? html`<span class="state">active</span> until ${timeHtml(key.revoked_at)}`
        : html`<span class="state">active</span>`;
    const actions =
      !revoked &&
      html`<a class="button quiet" href="${path}/roll" aria-label="Roll ${name}">Roll</a> <a class="button danger" href="${path}/revoke" aria-label="Revoke ${name}">Revoke</a>`;
    return html`<tr><td><a href="${path}">${name}</a></td><td>${keyKind(key)}</td><td><code>${key.prefix}…</code></td><td>${key.origins.join(", ") || "—"}</td><td>${timeHtml(key.created_at)}</td><td>${stateCell}</td><td class="actions">${actions}</td></tr>`;
  });
  return html`<div class="table-wrap"><table class="readable">
<thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Prefix</th><th scope="col">Origins</th><th scope="col">Created</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

/** A new key's secret, shown once, with its copy button and a curl line. */
export function createdSecret(secret: string, publicUrl: string | null): Html {
  return secretCard({
    id: "secret-heading",
    heading: "Your new key",
    lead: "Copy it now: it is shown only this once.",
    secret,
    publicUrl,
  });
}

/** The account's first key, shown once right after sign-up or an accepted invitation. */
export function firstKeyCard(secret: string, publicUrl: string | null): Html {
  return secretCard({
    id: "first-key-heading",
    heading: "Your first key",
    lead: "Your account made this secret key for the API. Copy it now: it is shown only this once (make more under Keys).",
    secret,
    publicUrl,
  });
}

const KEY_KINDS = [
  ["secret", "secret (servers)"],
  ["publishable", "publishable (web pages)"],
] as const;

export function createKeyForm(csrf: string, error?: string): Html {
  const fields = html`${field({ name: "name", label: "Name", maxlength: 200 })}
${field({ name: "kind", label: "Kind", options: KEY_KINDS, value: "secret" })}
${field({ name: "origins", label: "Origins (publishable keys: space-separated)", error, maxlength: 2000 })}`;
  return form({ action: "/account/keys", csrf, fields, button: "Create key" });
}

export function reportsTable(reports: readonly Report[]): Html {
  if (reports.length === 0) return html`<p class="muted">Your keys have filed no report.</p>`;
  const rows = reports.map(
    (report) =>
      html`<tr><td>${report.id}</td><td>${report.domain}</td><td>${report.expected}</td><td>${report.status}</td><td>${timeHtml(report.filedAt)}</td><td>${report.reviewNote ?? ""}</td></tr>`,
  );
  return html`<div class="table-wrap"><table class="readable">
<thead><tr><th scope="col">Report</th><th scope="col">Domain</th><th scope="col">Expected</th><th scope="col">State</th><th scope="col">Filed</th><th scope="col">Review note</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}
