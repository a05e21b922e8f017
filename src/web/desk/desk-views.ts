/**
 * The operator's desk as HTML (docs/console.md "The operator's desk"): server-rendered
 * in the one layout of the page kit (kit/layout.ts), every outside text escaped by
 * `html`, every change a POST form with the session's CSRF token, every field
 * labelled; usable without JavaScript.
 */
import type { AccountJson, OneTimeLink } from "../../operator/accounts.js";
import type { AuditEntryJson, AuditFilter } from "../../operator/audit.js";
import type { SourceStateJson } from "../../operator/lists.js";
import type { OverrideJson } from "../../operator/overrides.js";
import type { PlanJson } from "../../operator/plans.js";
import type { QueueEntryJson } from "../../operator/reports.js";
import type { Stats } from "../../operator/stats.js";
import type { DeliveryJson, WebhookJson } from "../../operator/webhooks.js";
import { type Html, type HtmlValue, html, joinHtml } from "../../page-kit/html.js";
import { areaPage, card, type FieldOptions, field, form, hidden, table } from "../../page-kit/layout.js";
import { readableCount, timeHtml } from "../../page-kit/readable.js";
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

function deskPage(path: DeskPath, context: DeskContext, main: HtmlValue): Html {
  return areaPage({
    title: DESK_PAGES.find(([p]) => p === path)?.[1] ?? "",
    area: "mailrisk console",
    description: "The operator's desk of this mailrisk service.",
    signedIn: html`Signed in as ${context.email}. <a href="/account">Your account</a>`,
    navLabel: "Console",
    links: DESK_PAGES,
    current: path,
    main,
  });
}

/** A text cell, or a dash. */
const text = (value: string | number | null) => (value === null ? "—" : String(value));
/** A time as people read it (`<time>` with the ISO form), or a dash. */
const when = (value: string | null) => (value === null ? "—" : timeHtml(value));
/** A count with thousands separators, or a dash. */
const count = (value: number | null) => (value === null ? "—" : readableCount(value));

/** A one-button POST form; `fields` travel as hidden inputs beside the CSRF token. */
function postButton(
  context: DeskContext,
  action: string,
  label: string,
  fields: Record<string, string> = {},
): Html {
  return form({
    action,
    csrf: context.csrf,
    fields: Object.entries(fields).map(([name, value]) => hidden(name, value)),
    button: label,
    buttonClass: "act quiet",
    layout: "inline",
  });
}

/** A field of a side-by-side form, in its own cell. */
function cell(options: FieldOptions): Html {
  return html`<p>${field(options)}</p>`;
}

export interface OverviewView {
  resolver: { state: string; checkedAt: string | null };
  lists: SourceStateJson[];
  openReports: number;
  reportsCapped: boolean;
  /** The traffic of the last 30 days, charted. */
  traffic: Stats;
}

export function renderOverview(context: DeskContext, view: OverviewView): Html {
  const { resolver } = view;
  const checked = resolver.checkedAt && `, checked ${resolver.checkedAt}`;
  const reports = `${view.openReports}${view.reportsCapped ? " or more" : ""}`;
  const sources = view.lists.map((s) => [
    s.source,
    s.in_force
      ? html`${count(s.in_force.entries)} entries since ${when(s.in_force.accepted_at)}`
      : "bundled list",
    s.last_error ?? "ok",
  ]);
  return deskPage(
    "/console",
    context,
    html`${card("resolver-heading", "Resolver", html`<p>State: <strong>${resolver.state}</strong>${checked}.</p>`)}
${card("reports-heading", "Reports", html`<p><a href="/console/reports">${reports} open report${view.openReports === 1 ? "" : "s"}</a> waiting for a review.</p>`)}
${card("lists-heading", "List sources", table("List sources", ["Source", "In force", "Last sync"], sources, "No list source is configured."))}
${card("accounts-heading", "Accounts", html`<p><a href="/console/accounts">Search the accounts</a>, change their plan, suspend or resume them, invite someone.</p>`)}
${trafficCards(view.traffic)}`,
  );
}

function evidenceList(entry: QueueEntryJson): Html | undefined {
  const items = entry.today.evidence.map(
    (item) =>
      html`<li>${item.risk ? html`<span class="adds">+${item.risk}</span> ` : undefined}${item.detail}</li>`,
  );
  return items.length > 0 ? html`<ul class="evidence">${items}</ul>` : undefined;
}

export function renderReports(context: DeskContext, queue: QueueEntryJson[]): Html {
  const cards = queue.map((entry) => {
    const id = `report-${entry.id}`;
    const note = entry.note && html`<p>Note: ${entry.note}</p>`;
    const { today } = entry;
    const path = `/console/reports/${encodeURIComponent(entry.id)}`;
    const review = (decision: "accept" | "reject", label: string) =>
      html`<p><button class="act${decision === "reject" && " quiet"}" type="submit" formaction="${path}/${decision}">${label}</button></p>`;
    return card(
      id,
      `${entry.domain}: expected ${entry.expected}`,
      html`<p>Today: <strong>${today.answer}</strong>, risk ${today.risk}/100 (${today.reason}). Reported by ${entry.reporters} key${entry.reporters === 1 ? "" : "s"}, filed ${when(entry.filed_at)}.</p>
${note}${evidenceList(entry)}
<form class="fields" method="post" action="${path}/accept">${hidden("csrf", context.csrf)}${cell({ id: `${id}-note`, name: "note", label: "Review note", maxlength: 500 })}${review("accept", "Accept")}${review("reject", "Reject")}</form>`,
    );
  });
  return deskPage(
    "/console/reports",
    context,
    cards.length > 0 ? joinHtml(cards) : html`<p class="muted">No open reports.</p>`,
  );
}

const OVERRIDE_KINDS = [
  ["domain", "Domain"],
  ["mx_host", "MX host"],
  ["mx_ip", "MX address"],
  ["ns", "Name server"],
] as const;
const OVERRIDE_ACTIONS = [
  ["deny", "Block (deny)"],
  ["allow", "Allow"],
  ["never_disposable", "Never disposable (infrastructure)"],
] as const;

export function renderOverrides(context: DeskContext, overrides: OverrideJson[]): Html {
  const rows = overrides.map((o) => [
    o.kind,
    o.value,
    o.action,
    text(o.note),
    when(o.created_at),
    postButton(context, "/console/overrides/remove", "Remove", { kind: o.kind, value: o.value }),
  ]);
  const setForm = form({
    action: "/console/overrides",
    csrf: context.csrf,
    layout: "fields",
    buttonClass: "act",
    button: "Set",
    fields: joinHtml([
      cell({ id: "override-kind", name: "kind", label: "Kind", options: OVERRIDE_KINDS }),
      cell({
        id: "override-value",
        name: "value",
        label: "Domain or host",
        required: true,
        maxlength: 253,
        verbatim: true,
      }),
      cell({ id: "override-action", name: "action", label: "Action", options: OVERRIDE_ACTIONS }),
      cell({ id: "override-note", name: "note", label: "Note", maxlength: 200 }),
    ]),
  });
  return deskPage(
    "/console/overrides",
    context,
    html`${card("set-heading", "Set an override", setForm)}
${card("overrides-heading", "Overrides in force", table("Overrides", ["Kind", "Value", "Action", "Note", "Since", "Change"], rows, "No overrides."))}`,
  );
}

/** A plan's quota form: the new number of requests per period. */
function quotaForm(context: DeskContext, plan: PlanJson, index: number): Html {
  return form({
    action: `/console/plans/${encodeURIComponent(plan.name)}`,
    csrf: context.csrf,
    layout: "fields",
    buttonClass: "act quiet",
    button: "Save",
    fields: cell({
      id: `plan-${index}-quota`,
      name: "quota",
      label: `Quota of ${plan.name}`,
      value: plan.quota === null ? "" : String(plan.quota),
      inputmode: "numeric",
      pattern: "[0-9]{1,10}",
      required: true,
    }),
  });
}

export function renderPlans(context: DeskContext, plans: PlanJson[]): Html {
  const rows = plans.map((p, index) => [
    p.name,
    p.quota === null ? "unlimited" : count(p.quota),
    p.period_days,
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

export function renderLists(context: DeskContext, sources: SourceStateJson[]): Html {
  const rows = sources.map((s) => [
    s.source,
    s.in_policy === null ? "not set" : s.in_policy ? "yes" : "no",
    s.in_force ? html`${count(s.in_force.entries)} entries, ${when(s.in_force.accepted_at)}` : "bundled list",
    text(s.last_success),
    text(s.last_error),
    s.previous && postButton(context, "/console/lists/rollback", "Roll back", { source: s.source }),
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

export function renderWebhooks(context: DeskContext, webhooks: WebhookJson[], events: DeliveryJson[]): Html {
  const hooks = webhooks.map((w) => [w.id, w.url, w.events.join(", "), when(w.created_at)]);
  const deliveries = events.map((e) => [
    when(e.created_at),
    e.webhook_id,
    e.type,
    text(e.domain),
    e.status,
    e.attempts.map((a) => `${a.attempt}: ${a.status_code ?? a.error ?? "?"}`).join(", ") || "—",
  ]);
  return deskPage(
    "/console/webhooks",
    context,
    html`${card("webhooks-heading", "Webhooks", table("Webhooks", ["Id", "URL", "Events", "Created"], hooks, "No webhooks."))}
${card("deliveries-heading", "Last deliveries", table("Deliveries", ["Created", "Webhook", "Type", "Domain", "Status", "Attempts"], deliveries, "No events yet."))}`,
  );
}

export function renderAudit(context: DeskContext, filter: AuditFilter, entries: AuditEntryJson[]): Html {
  const input = (name: "actor" | "action" | "entity", label: string) =>
    cell({ id: `audit-${name}`, name, label, value: filter[name] ?? "", maxlength: 320, verbatim: true });
  const search = form({
    action: "/console/audit",
    role: "search",
    layout: "fields",
    buttonClass: "act",
    button: "Search",
    fields: html`${input("actor", "Actor")}${input("action", "Action")}${input("entity", "Entity")}`,
  });
  const rows = entries.map((e) => [
    when(e.at),
    e.actor,
    e.action,
    e.entity_id === null ? e.entity_kind : `${e.entity_kind}:${e.entity_id}`,
    html`<code>${JSON.stringify(e.detail)}</code>`,
  ]);
  return deskPage(
    "/console/audit",
    context,
    html`${card("search-heading", "Search", search)}
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
function accountForms(context: DeskContext, view: AccountsView, account: AccountJson, index: number): Html {
  const action = `/console/accounts/${encodeURIComponent(account.id)}`;
  const kept: Record<string, string> = view.search ? { search: view.search } : {};
  const plan = form({
    action: `${action}/plan`,
    csrf: context.csrf,
    layout: "fields",
    buttonClass: "act quiet",
    button: "Save",
    fields: html`${Object.entries(kept).map(([name, value]) => hidden(name, value))}
${cell({
  id: `account-${index}-plan`,
  name: "plan",
  label: `Plan of ${account.email}`,
  options: view.plans.map((name) => [name, name] as const),
  value: account.plan,
})}`,
  });
  const state =
    account.email !== context.email &&
    (account.state === "active"
      ? postButton(context, `${action}/suspend`, "Suspend", kept)
      : postButton(context, `${action}/resume`, "Resume", kept));
  return html`${plan}${state}`;
}

function inviteForm(context: DeskContext, view: AccountsView): Html {
  return form({
    action: "/console/accounts/invite",
    csrf: context.csrf,
    layout: "fields",
    buttonClass: "act",
    button: "Invite",
    fields: joinHtml([
      cell({
        id: "invite-email",
        name: "email",
        label: "Email",
        type: "email",
        required: true,
        maxlength: 254,
        verbatim: true,
      }),
      cell({
        id: "invite-plan",
        name: "plan",
        label: "Plan",
        options: view.plans.map((name) => [name, name] as const),
        value: view.signupPlan,
      }),
      cell({ id: "invite-operator", name: "operator", label: "Operator", type: "checkbox", value: "on" }),
    ]),
  });
}

export function renderAccounts(context: DeskContext, view: AccountsView): Html {
  const search = form({
    action: "/console/accounts",
    role: "search",
    layout: "fields",
    buttonClass: "act",
    button: "Search",
    fields: cell({
      id: "accounts-search",
      name: "search",
      label: "Search",
      type: "search",
      value: view.search,
      maxlength: 254,
      verbatim: true,
    }),
  });
  const rows = view.accounts.map((a, index) => [
    a.email,
    a.role,
    a.plan,
    html`<span class="state">${a.state}</span>`,
    when(a.created_at),
    accountForms(context, view, a, index),
  ]);
  const heading = view.search ? `Accounts whose email contains “${view.search}”` : "Accounts, newest first";
  const capped =
    view.capped &&
    html`<p class="muted">Only the newest ${view.accounts.length} are shown: search to find the others.</p>`;
  const empty = view.search ? "No email contains this text." : "No accounts yet.";
  return deskPage(
    "/console/accounts",
    context,
    html`${card("search-heading", "Search", search)}
${card("accounts-list-heading", heading, html`${table("Accounts", ["Email", "Role", "Plan", "State", "Created", "Change"], rows, empty)}${capped}`)}
${card("invite-heading", "Invite someone", inviteForm(context, view))}`,
  );
}

/** An invitation just made: its one-time link, shown this once, and whether it was mailed. */
export function renderInvited(context: DeskContext, link: OneTimeLink): Html {
  const mailed = link.mailed
    ? html`<p>It was mailed to ${link.email} too.</p>`
    : html`<p>It was not mailed (SMTP_URL is not set): give it to them yourself.</p>`;
  return deskPage(
    "/console/accounts",
    context,
    card(
      "invited-heading",
      `Invitation for ${link.email}`,
      html`<p>Where ${link.email} sets a password, until ${when(link.expires_at)}. Copy it now: it is shown only this once.</p>
<code class="secret" data-invite-link="${link.url}">${link.url}</code>
${mailed}
<p><a href="/console/accounts">Back to the accounts</a></p>`,
    ),
  );
}
