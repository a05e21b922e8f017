/**
 * The result page of one domain (docs/api.md "Result pages"): the whole verdict at a glance — block
 * recommendation, status line, risk with its level and a meter — then every flag, the
 * mail routing, the registration, curl examples for both routes and the recently
 * checked domains. Every value from the record is escaped.
 */
import type { EvidenceItem } from "../../core/evidence.js";
import { type CheckRecord, FLAGS, flagLabel } from "../../core/record.js";
import { riskLevel } from "../../core/verdict.js";
import { type Html, type HtmlValue, html } from "../../page-kit/html.js";
import {
  card,
  domainLinks,
  recentCard,
  renderPage,
  type Signup,
  searchForm,
  wayInLinks,
} from "../../page-kit/layout.js";
import { renderApiExamples } from "./api-examples.js";

export interface DomainView {
  record: CheckRecord;
  /** The evidence behind the verdict (docs/api.md "Evidence (`explain=true`)"), shown under it. */
  evidence: readonly EvidenceItem[];
  recent: readonly string[];
  baseUrl: string;
  /** Who may get an account: the header's way in and where the examples' key comes from. */
  signup: Signup;
}

/**
 * The record's flags as a person reads them, in the record's order. The role-account
 * flag is left out: it describes an address's local part, which a page never sees.
 */
const FLAGS_SHOWN = FLAGS.filter((flag) => flag !== "is_role_based_email").map(
  (flag) => [flag, flagLabel(flag)] as const,
);

const NONE = html`<span class="muted">none</span>`;
const UNKNOWN = html`<span class="muted">unknown</span>`;

function textOr(value: string | null, fallback: Html): HtmlValue {
  return value || fallback;
}

/** `2025-01-01T00:00:00+00:00` as a `<time>`: the date, plus the UTC time when `withTime`. */
function time(timestamp: string, withTime: boolean): Html {
  const shown = withTime
    ? `${timestamp.slice(0, 10)} ${timestamp.slice(11, 16)} UTC`
    : timestamp.slice(0, 10);
  return html`<time datetime="${timestamp}">${shown}</time>`;
}

function age(days: number): string {
  const years = Math.floor(days / 365.25);
  const count = `${days.toLocaleString("en-US")} ${days === 1 ? "day" : "days"}`;
  return years >= 1 ? `${count} (about ${years} ${years === 1 ? "year" : "years"})` : count;
}

function row(label: string, value: HtmlValue): Html {
  return html`<dt>${label}</dt><dd>${value}</dd>`;
}

function flagList(record: CheckRecord): Html {
  const items = FLAGS_SHOWN.map(([flag, label]) => {
    const on = record[flag];
    return html`<li${on && html` class="on"`}><span>${label}</span><span>${on ? "yes" : "no"}</span></li>`;
  });
  return html`<ul class="flags">${items}</ul>`;
}

function mailDetails(record: CheckRecord): Html {
  const typos = domainLinks(record.possible_typo, NONE);
  return html`<dl>
${row("MX host", textOr(record.mx_host, NONE))}
${row("MX IP", textOr(record.mx_ip, NONE))}
${row("How found", record.mx_info)}
${row("Email provider", textOr(record.email_provider, NONE))}
${row("Disposable provider", textOr(record.disposable_provider, NONE))}
${row("Possible typo of", typos)}
</dl>`;
}

function domainDetails(record: CheckRecord): Html {
  return html`<dl>
${row("Base domain", record.base_domain)}
${row("Registered", record.domain_created_at ? time(record.domain_created_at, false) : UNKNOWN)}
${row("Age", record.domain_age_days === null ? UNKNOWN : age(record.domain_age_days))}
${row("Last updated", html`${time(record.block_status_changed_at, true)} <span class="muted">(block status last changed)</span>`)}
</dl>`;
}

/** The evidence as a short list: each item's sentence, and what it added to the risk. */
function evidenceList(evidence: readonly EvidenceItem[]): Html | undefined {
  if (evidence.length === 0) return undefined;
  const items = evidence.map(
    (item) =>
      html`<li>${item.detail}${item.risk ? html` <span class="adds" title="added to the risk">+${item.risk}</span>` : undefined}</li>`,
  );
  return html`<h2 class="why" id="evidence-heading">Why</h2>
<ul class="evidence" aria-labelledby="evidence-heading">${items}</ul>
`;
}

/** True when the page is about a domain that does not exist (answered 404, not indexed). */
export function isNonExistent(record: CheckRecord): boolean {
  return record.reason === "NXDOMAIN";
}

export function renderDomainPage({ record, evidence, recent, baseUrl, signup }: DomainView): Html {
  const decision = record.block ? "Block" : "Allow";
  const level = riskLevel(record.risk);
  const verdictClass = record.block ? "block" : "allow";
  const nonExistent = isNonExistent(record);
  return renderPage({
    title: `${record.domain}: ${decision}, risk ${record.risk}/100 — mailrisk`,
    description: `${record.domain}: ${decision} sign-ups. ${record.text} (${record.reason}); risk ${record.risk} / 100 (${level}).`,
    noindex: nonExistent,
    headerLinks: wayInLinks(signup),
    main: html`<section class="card verdict ${verdictClass}" aria-labelledby="domain-heading">
<p class="eyebrow">Risk check of</p>
<h1 id="domain-heading">${record.domain}</h1>
<div class="decision">
<p class="badge" id="decision">${decision}</p>
<p class="status"><strong>${record.text}</strong> · ${record.reason}</p>
</div>
${nonExistent && html`<p><strong>This domain does not exist</strong>: DNS has no such name, so no address under it can receive mail.</p>\n`}<div class="risk">
<p class="score">${record.risk} / 100 <span class="level ${level.toLowerCase()}">${level}</span></p>
<meter min="0" max="100" low="29.5" high="69.5" optimum="0" value="${record.risk}" aria-label="Risk ${record.risk} of 100, ${level}"></meter>
</div>
<p class="hint">Risk score 0–100: LOW below 30, MEDIUM 30–69, HIGH 70 and above. ${record.block ? "Sign-ups from this domain should be refused." : "Sign-ups from this domain can be accepted."}</p>
${evidenceList(evidence)}</section>
${card("flags-heading", "Flags", flagList(record))}
<div class="grid">
${card("mail-heading", "Mail", mailDetails(record))}
${card("registration-heading", "Domain", domainDetails(record))}
</div>
${card("api-heading", "Check it with the API", renderApiExamples(baseUrl, record.domain, signup))}
${recentCard(recent)}
<section class="card" aria-label="Check another domain">
${searchForm("q")}
</section>`,
  });
}
