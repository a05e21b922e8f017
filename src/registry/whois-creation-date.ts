/**
 * Creation dates out of free-form WHOIS text. Registries differ in both the label
 * (`Creation Date:`, `created:`, `Registered on:`, `Registration Time:`, …) and the
 * date (`2001-02-03T04:05:06Z`, `2001-02-03`, `03-Feb-2001`, `03.02.2001`,
 * `2001/02/03`, …). Pure functions; the first labelled line with a readable date wins.
 */

/** Labels, lower case, inner spaces/underscores/hyphens folded to one space. */
const CREATION_LABELS = new Set([
  "creation date",
  "created",
  "created on",
  "created date",
  "creation time",
  "domain created",
  "domain create date",
  "domain creation date",
  "domain registration date",
  "domain name commencement date",
  "registered",
  "registered on",
  "registered date",
  "registration date",
  "registration time",
  "record created",
  "record created on",
]);

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** `label:` (dots may pad the label, as in `created.......:`) then the value. */
const LABELLED_LINE = /^\s*([a-z][a-z _-]*?)[\s.]*:\s*(.*)$/i;

/** Optional time of day and zone after a date: `T04:05:06.789Z`, ` 04:05:06 +01:00`, ` 04:05 UTC`, ` 04:05:06 CLST`. */
const TIME_TAIL = /^(?:[T\s]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?)?/i;

const YEAR_FIRST = /^(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?!\d)/;
const DAY_FIRST_NUMERIC = /^(\d{1,2})([.-])(\d{1,2})\2(\d{4})(?!\d)/;
const DAY_FIRST_NAMED = /^(\d{1,2})(?:st|nd|rd|th)?[-\s/.]+([a-z]{3,9})\.?[-\s/.,]+(\d{4})(?!\d)/i;
const MONTH_FIRST_NAMED =
  /^(?:[a-z]{3,9},?\s+)?([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?!\d)/i;

/** `Feb`, `Febr`, `February` → 2 (any prefix of three letters or more). */
function monthNumber(name: string): number | undefined {
  const lower = name.toLowerCase();
  const index = MONTHS.findIndex((month) => lower.length >= 3 && month.startsWith(lower));
  return index >= 0 ? index + 1 : undefined;
}

function offsetMinutes(zone: string | undefined): number {
  const match = zone ? /^([+-])(\d{2}):?(\d{2})$/.exec(zone) : null;
  if (!match) return 0;
  return (match[1] === "-" ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
}

/** A calendar date plus the optional time tail; null when the parts are not a real date. */
function build(year: number, month: number | undefined, day: number, tail: string): Date | null {
  if (month === undefined || year < 1980 || year > 9999) return null;
  const time = TIME_TAIL.exec(tail) ?? [];
  const [hours, minutes, seconds] = [time[1], time[2], time[3]].map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
  ];
  const utc = new Date(Date.UTC(year, month - 1, day, hours, minutes, seconds));
  const real =
    utc.getUTCFullYear() === year &&
    utc.getUTCMonth() === month - 1 &&
    utc.getUTCDate() === day &&
    utc.getUTCHours() === hours &&
    utc.getUTCMinutes() === minutes &&
    utc.getUTCSeconds() === seconds;
  return real ? new Date(utc.getTime() - offsetMinutes(time[4]) * 60_000) : null;
}

/** One WHOIS date value; times without a zone are taken as UTC. Null when unreadable. */
export function parseWhoisDate(value: string): Date | null {
  const text = value.trim();
  let m = YEAR_FIRST.exec(text);
  if (m) return build(Number(m[1]), Number(m[3]), Number(m[4]), text.slice(m[0].length));
  m = DAY_FIRST_NUMERIC.exec(text);
  if (m) return build(Number(m[4]), Number(m[3]), Number(m[1]), text.slice(m[0].length));
  m = DAY_FIRST_NAMED.exec(text);
  if (m) return build(Number(m[3]), monthNumber(m[2] ?? ""), Number(m[1]), text.slice(m[0].length));
  m = MONTH_FIRST_NAMED.exec(text);
  if (m) return build(Number(m[3]), monthNumber(m[1] ?? ""), Number(m[2]), text.slice(m[0].length));
  return null;
}

function isCreationLabel(label: string): boolean {
  return CREATION_LABELS.has(label.toLowerCase().replace(/[\s_-]+/g, " "));
}

/** The domain's creation date from a WHOIS answer, or null when it states none. */
export function parseWhoisCreationDate(text: string): Date | null {
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    const match = LABELLED_LINE.exec(line);
    if (!match || !isCreationLabel(match[1] ?? "")) continue;
    const value = match[2]?.trim() || (lines.slice(index + 1).find((next) => next.trim() !== "") ?? "");
    const date = parseWhoisDate(value);
    if (date) return date;
  }
  return null;
}
