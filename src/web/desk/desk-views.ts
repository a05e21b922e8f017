/**
 * The operator's desk as HTML (docs/console.md "The operator's desk"): server-rendered
 * in the pages' frame (layout.ts), every outside text escaped, every change a POST form
 * with the session's CSRF token, every field labelled; usable without JavaScript.
 */
import type { AccountJson, OneTimeLink } from "../../operator/accounts.js";
import type { AuditEntryJson, AuditFilter } from "../../operator/audit.js";
import type { SourceStateJson } from "../../operator/lists.js";
import type { OverrideJson } from "../../operator/overrides.js";
import type { PlanJson } from "../../operator/plans.js";
import type { QueueEntryJson } from "../../operator/reports.js";
import type { Stats } from "../../operator/stats.js";
import type { DeliveryJson, WebhookJson } from "../../operator/webhooks.js";
import { card, escapeHtml, renderPage } from "../kit/layout.js";
import { readableCount, timeHtml } from "../kit/readable.js";
import { trafficCards } from "./traffic-charts.js";

/** The desk's pages, in the order its navigation lists them. */
const DESK_PAGES = [
  ["/console", "Overview"],
  ["/console/reports", "Reports"],
  ["/console/overrides", "Overrides"],
  ["/console/plans", "Plans"],
  ["/console/lists", "Lists"],
  ["/console/webhooks", "Webhooks"],
  ["/console/accounts", "Accounts"],
  ["/console/audit", "Audit log"],
] as const;
export type DeskPath = (typeof DESK_PAGES)[number][0];

/** What every page of the desk knows: who is signed in, and the token its forms carry. */
export interface DeskContext {
  email: string;
  csrf: string;
}

function deskPage(path: DeskPath, context: DeskContext, main: string): string {
  const title = DESK_PAGES.find(([p]) => p === path)?.[1] ?? "";
  const links = DESK_PAGES.map(
    ([p, label]) => `<li><a href="${p}"${p === path ? ' aria-current="page"' : ""}>${label}</a></li>`,
  ).join("");
  return renderPage({
    title: `${title} — mailrisk console`,
    description: "The operator's desk of this mailrisk service.",
    noindex: true,
    main: `<h1>${escapeHtml(title)}</h1>
<p class="muted">Signed in as ${escapeHtml(context.email)}. <a href="/account">Your account</a></p>
<nav class="desk" aria-label="Console"><ul>${links}</ul></nav>
${main}`,
  });
}

/** A table of text cells (escaped), scrollable on its own on a narrow screen. */
function table(label: string, head: readonly string[], rows: readonly (readonly string[])[], empty: string) {
  if (rows.length === 0) return `<p class="muted">${escapeHtml(empty)}</p>`;
  const headCells = head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join("");
  const body = rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join("")}</tr>`).join("");
  return `<div class="scroll" role="region" aria-label="${escapeHtml(label)}, table" tabindex="0"><table><thead><tr>${headCells}</tr></thead><tbody>${body}</tbody></table></div>`;
}

const text = (value: string | number | null) => escapeHtml(value === null ? "—" : String(value));
/** A time as people read it (`<time>` with the ISO form), or a dash. */
const when = (value: string | null) => (value === null ? "—" : timeHtml(value));
/** A count with thousands separators, or a dash. */
const count = (value: number | null) => (value === null ? "—" : readableCount(value));

function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
}

/** A one-button POST form; `fields` travel as hidden inputs beside the CSRF token. */
function postButton(
  context: DeskContext,
  action: string,
  label: string,
  fields: Record<string, string> = {},
): string {
  const inputs = Object.entries(fields).map(([name, value]) => hidden(name, value));
  return `<form class="inline" method="post" action="${escapeHtml(action)}">${hidden("csrf", context.csrf)}${inputs.join("")}<button class="act quiet" type="submit">${escapeHtml(label)}</button></form>`;
}

/** A labelled field of a form: `control` is the input's HTML with `id`. */
function field(id: string, label: string, control: string): string {
  return `<p><label for="${id}">${escapeHtml(label)}</label>${control}</p>`;
}

function select(id: string, name: string, options: readonly [string, string][], chosen = ""): string {
  const items = options.map(
    ([value, label]) =>
      `<option value="${escapeHtml(value)}"${value === chosen ? " selected" : ""}>${escapeHtml(label)}</option>`,
  );
  return `<select id="${id}" name="${name}">${items.join("")}</select>`;
}

export interface OverviewView {
  resolver: { state: string; checkedAt: string | null };
  lists: SourceStateJson[];
  openReports: number;
  reportsCapped: boolean;
  /** The traffic of the last 30 days, charted. */
  traffic: Stats;
}

export function renderOverview(context: DeskContext, view: OverviewView): string {
  const { resolver } = view;
  const checked = resolver.checkedAt ? `, checked ${text(resolver.checkedAt)}` : "";
  const reports = `${view.openReports}${view.reportsCapped ? " or more" : ""}`;
  const sources = view.lists.map((s) => [
    text(s.source),
    s.in_force
      ? `${count(s.in_force.entries)} entries since ${when(s.in_force.accepted_at)}`
      : "bundled list",
    text(s.last_error ?? "ok"),
  ]);
  return deskPage(
    "/console",
    context,
    `${card("resolver-heading", "Resolver", `<p>State: <strong>${text(resolver.state)}</strong>${checked}.</p>`)}
${card("reports-heading", "Reports", `<p><a href="/console/reports">${text(reports)} open report${view.openReports === 1 ? "" : "s"}</a> waiting for a review.</p>`)}
${card("lists-heading", "List sources", table("List sources", ["Source", "In force", "Last sync"], sources, "No list source is configured."))}
${card("accounts-heading", "Accounts", '<p><a href="/console/accounts">Search the accounts</a>, change their plan, suspend or resume them, invite someone.</p>')}
${trafficCards(view.traffic)}`,
  );
}

function evidenceList(entry: QueueEntryJson): string {
  const items = entry.today.evidence.map(
    (item) => `<li>${item.risk ? `<span class="adds">+${item.risk}</span> ` : ""}${text(item.detail)}</li>`,
  );
  return items.length > 0 ? `<ul class="evidence">${items.join("")}</ul>` : "";
}

export function renderReports(context: DeskContext, queue: QueueEntryJson[]): string {
  const cards = queue.map((entry) => {
    const id = `report-${entry.id}`;
    const note = entry.note ? `<p>Note: ${text(entry.note)}</p>` : "";
    const { today } = entry;
    const noteField = field(
      `${id}-note`,
      "Review note",
      `<input id="${id}-note" name="note" type="text" maxlength="500">`,
    );
    const review = (decision: "accept" | "reject", label: string) =>
      `<button class="act${decision === "reject" ? " quiet" : ""}" type="submit" formaction="/console/reports/${encodeURIComponent(entry.id)}/${decision}">${label}</button>`;
    return card(
      id,
      `${entry.domain}: expected ${entry.expected}`,
      `<p>Today: <strong>${text(today.answer)}</strong>, risk ${today.risk}/100 (${text(today.reason)}). Reported by ${entry.reporters} key${entry.reporters === 1 ? "" : "s"}, filed ${when(entry.filed_at)}.</p>
${note}${evidenceList(entry)}
<form class="fields" method="post" action="/console/reports/${encodeURIComponent(entry.id)}/accept">${hidden("csrf", context.csrf)}${noteField}<p>${review("accept", "Accept")}</p><p>${review("reject", "Reject")}</p></form>`,
    );
  });
  return deskPage(
    "/console/reports",
    context,
    cards.length > 0 ? cards.join("\n") : '<p class="muted">No open reports.</p>',
  );
}

const OVERRIDE_KINDS: [string, string][] = [
  ["domain", "Domain"],
  ["mx_host", "MX host"],
  ["mx_ip", "MX address"],
  ["ns", "Name server"],
];
const OVERRIDE_ACTIONS: [string, string][] = [
  ["deny", "Block (deny)"],
  ["allow", "Allow"],
  ["never_disposable", "Never disposable (infrastructure)"],
];

export function renderOverrides(context: DeskContext, overrides: OverrideJson[]): string {
  const rows = overrides.map((o) => [
    text(o.kind),
    text(o.value),
    text(o.action),
    text(o.note),
    when(o.created_at),
    postButton(context, "/console/overrides/remove", "Remove", { kind: o.kind, value: o.value }),
  ]);
  const form = `<form class="fields" method="post" action="/console/overrides">${hidden("csrf", context.csrf)}
${field("override-kind", "Kind", select("override-kind", "kind", OVERRIDE_KINDS))}
${field("override-value", "Domain or host", '<input id="override-value" name="value" type="text" required maxlength="253" autocapitalize="off" spellcheck="false">')}
${field("override-action", "Action", select("override-action", "action", OVERRIDE_ACTIONS))}
${field("override-note", "Note", '<input id="override-note" name="note" type="text" maxlength="200">')}
<p><button class="act" type="submit">Set</button></p></form>`;
  return deskPage(
    "/console/overrides",
    context,
    `${card("set-heading", "Set an override", form)}
${card("overrides-heading", "Overrides in force", table("Overrides", ["Kind", "Value", "Action", "Note", "Since", "Change"], rows, "No overrides."))}`,
  );
}

/** A plan's quota form: the new number of requests per period. */
function quotaForm(context: DeskContext, plan: PlanJson, index: number): string {
  const id = `plan-${index}-quota`;
  return `<form class="fields" method="post" action="/console/plans/${encodeURIComponent(plan.name)}">${hidden("csrf", context.csrf)}
${field(id, `Quota of ${plan.name}`, `<input id="${id}" name="quota" type="text" inputmode="numeric" pattern="[0-9]{1,10}" required value="${plan.quota ?? ""}">`)}
<p><button class="act quiet" type="submit">Save</button></p></form>`;
}

export function renderPlans(context: DeskContext, plans: PlanJson[]): string {
  const rows = plans.map((p, index) => [
    text(p.name),
    p.quota === null ? "unlimited" : count(p.quota),
    text(p.period_days),
    quotaForm(context, p, index),
  ]);
  return deskPage(
    "/console/plans",
    context,
    card(
      "plans-heading",
      "Plans",
      table("Plans", ["Name", "Quota", "Period (days)", "Change"], rows, "No plans."),
    ),
  );
}

export function renderLists(context: DeskContext, sources: SourceStateJson[]): string {
  const rows = sources.map((s) => [
    text(s.source),
    text(s.in_policy === null ? "not set" : s.in_policy ? "yes" : "no"),
    s.in_force ? `${count(s.in_force.entries)} entries, ${when(s.in_force.accepted_at)}` : "bundled list",
    text(s.last_success),
    text(s.last_error),
    s.previous ? postButton(context, "/console/lists/rollback", "Roll back", { source: s.source }) : "",
  ]);
  return deskPage(
    "/console/lists",
    context,
    card(
      "lists-heading",
      "List sources",
      table(
        "List sources",
        ["Source", "In policy", "In force", "Last success", "Last error", "Change"],
        rows,
        "No list source is configured or synced.",
      ),
    ),
  );
}

export function renderWebhooks(
  context: DeskContext,
  webhooks: WebhookJson[],
  events: DeliveryJson[],
): string {
  const hooks = webhooks.map((w) => [text(w.id), text(w.url), text(w.events.join(", ")), when(w.created_at)]);
  const deliveries = events.map((e) => [
    when(e.created_at),
    text(e.webhook_id),
    text(e.type),
    text(e.domain),
    text(e.status),
    text(e.attempts.map((a) => `${a.attempt}: ${a.status_code ?? a.error ?? "?"}`).join(", ") || "—"),
  ]);
  return deskPage(
    "/console/webhooks",
    context,
    `${card("webhooks-heading", "Webhooks", table("Webhooks", ["Id", "URL", "Events", "Created"], hooks, "No webhooks."))}
${card("deliveries-heading", "Last deliveries", table("Deliveries", ["Created", "Webhook", "Type", "Domain", "Status", "Attempts"], deliveries, "No events yet."))}`,
  );
}

export function renderAudit(context: DeskContext, filter: AuditFilter, entries: AuditEntryJson[]): string {
  const input = (name: "actor" | "action" | "entity", label: string) =>
    field(
      `audit-${name}`,
      label,
      `<input id="audit-${name}" name="${name}" type="text" maxlength="320" value="${escapeHtml(filter[name] ?? "")}" autocapitalize="off" spellcheck="false">`,
    );
  const form = `<form class="fields" method="get" action="/console/audit" role="search">
${input("actor", "Actor")}${input("action", "Action")}${input("entity", "Entity")}
<p><button class="act" type="submit">Search</button></p></form>`;
  const rows = entries.map((e) => [
    when(e.at),
    text(e.actor),
    text(e.action),
    text(e.entity_id === null ? e.entity_kind : `${e.entity_kind}:${e.entity_id}`),
    `<code>${text(JSON.stringify(e.detail))}</code>`,
  ]);
  return deskPage(
    "/console/audit",
    context,
    `${card("search-heading", "Search", form)}
${card("entries-heading", "Changes, newest first", table("Audit log", ["At", "Actor", "Action", "Entity", "Detail"], rows, "No changes match."))}`,
  );
}

export interface AccountsView {
  /** The search the list answers; empty: the newest accounts. */
  search: string;
  accounts: AccountJson[];
  /** Whether the list stopped at its bound: there may be more. */
  capped: boolean;
  plans: string[];
  /** The plan an invitation gets unless another is chosen (SIGNUP_PLAN). */
  signupPlan: string;
}

/** An account's changes: its plan (`Plan of <email>`, Save) and Suspend or Resume; none of them on one's own account's state. */
function accountForms(context: DeskContext, view: AccountsView, account: AccountJson, index: number): string {
  const id = `account-${index}-plan`;
  const action = `/console/accounts/${encodeURIComponent(account.id)}`;
  const kept: Record<string, string> = view.search ? { search: view.search } : {};
  const keptFields = Object.entries(kept).map(([name, value]) => hidden(name, value));
  const plans = view.plans.map((name): [string, string] => [name, name]);
  const plan = `<form class="fields" method="post" action="${action}/plan">${hidden("csrf", context.csrf)}${keptFields.join("")}
${field(id, `Plan of ${account.email}`, select(id, "plan", plans, account.plan))}
<p><button class="act quiet" type="submit">Save</button></p></form>`;
  const state =
    account.email === context.email
      ? ""
      : account.state === "active"
        ? postButton(context, `${action}/suspend`, "Suspend", kept)
        : postButton(context, `${action}/resume`, "Resume", kept);
  return `${plan}${state}`;
}

function inviteForm(context: DeskContext, view: AccountsView): string {
  const plans = view.plans.map((name): [string, string] => [name, name]);
  return `<form class="fields" method="post" action="/console/accounts/invite">${hidden("csrf", context.csrf)}
${field("invite-email", "Email", '<input id="invite-email" name="email" type="email" required maxlength="254" autocomplete="off" autocapitalize="off" spellcheck="false">')}
${field("invite-plan", "Plan", select("invite-plan", "plan", plans, view.signupPlan))}
${field("invite-operator", "Operator", '<input id="invite-operator" name="operator" type="checkbox" value="on">')}
<p><button class="act" type="submit">Invite</button></p></form>`;
}

export function renderAccounts(context: DeskContext, view: AccountsView): string {
  const search = `<form class="fields" method="get" action="/console/accounts" role="search">
${field("accounts-search", "Search", `<input id="accounts-search" name="search" type="search" maxlength="254" value="${escapeHtml(view.search)}" autocapitalize="off" spellcheck="false">`)}
<p><button class="act" type="submit">Search</button></p></form>`;
  const rows = view.accounts.map((a, index) => [
    text(a.email),
    text(a.role),
    text(a.plan),
    text(a.state),
    when(a.created_at),
    accountForms(context, view, a, index),
  ]);
  const heading = view.search ? `Accounts whose email contains “${view.search}”` : "Accounts, newest first";
  const capped = view.capped
    ? `<p class="muted">Only the newest ${view.accounts.length} are shown: search to find the others.</p>`
    : "";
  const empty = view.search ? "No email contains this text." : "No accounts yet.";
  return deskPage(
    "/console/accounts",
    context,
    `${card("search-heading", "Search", search)}
${card("accounts-list-heading", heading, `${table("Accounts", ["Email", "Role", "Plan", "State", "Created", "Change"], rows, empty)}${capped}`)}
${card("invite-heading", "Invite someone", inviteForm(context, view))}`,
  );
}

/** An invitation just made: its one-time link, shown this once, and whether it was mailed. */
export function renderInvited(context: DeskContext, link: OneTimeLink): string {
  const mailed = link.mailed
    ? `<p>It was mailed to ${text(link.email)} too.</p>`
    : "<p>It was not mailed (SMTP_URL is not set): give it to them yourself.</p>";
  return deskPage(
    "/console/accounts",
    context,
    card(
      "invited-heading",
      `Invitation for ${link.email}`,
      `<p>Where ${text(link.email)} sets a password, until ${when(link.expires_at)}. Copy it now: it is shown only this once.</p>
<code class="secret" data-invite-link="${escapeHtml(link.url)}">${text(link.url)}</code>
${mailed}
<p><a href="/console/accounts">Back to the accounts</a></p>`,
    ),
  );
}
