/**
 * Times and counts as pages show them to people (docs/accounts.md "Pages a person reads"):
 * `27 Nov 2026, 18:36 UTC` in a `<time>` whose `datetime` keeps the exact ISO form, and
 * counts with thousands separators (`66,011`). The API and the CLI keep the ISO forms.
 */
import { type Html, html } from "./html.js";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

const two = (n: number) => String(n).padStart(2, "0");

/** `27 Nov 2026` (UTC). */
export function readableDay(at: Date): string {
  return `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}`;
}

/** `27 Nov` (UTC): a chart's axis. */
export function shortDay(at: Date): string {
  return `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]}`;
}

/** `27 Nov 2026, 18:36 UTC`. */
export function readableTime(at: Date): string {
  return `${readableDay(at)}, ${two(at.getUTCHours())}:${two(at.getUTCMinutes())} UTC`;
}

/**
 * A time as HTML: `<time datetime="2026-11-27T18:36:33.000Z">27 Nov 2026, 18:36 UTC</time>`;
 * an ISO string (as records carry them) or a Date; anything unreadable is shown as it is.
 */
export function timeHtml(at: Date | string): Html {
  const date = typeof at === "string" ? new Date(at) : at;
  if (Number.isNaN(date.getTime())) return html`${String(at)}`;
  const iso = typeof at === "string" ? at : at.toISOString();
  return html`<time datetime="${iso}">${readableTime(date)}</time>`;
}

/** A whole count with thousands separators: `66,011`, `-3`. */
export function readableCount(n: number): string {
  const digits = String(Math.abs(Math.trunc(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return n < 0 ? `-${digits}` : digits;
}
