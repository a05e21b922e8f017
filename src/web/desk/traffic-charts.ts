/**
 * The desk's traffic charts (docs/console.md "Traffic"): SVG made on the server, no
 * script and no outside asset. Each chart is an image named by its `<title>` and
 * described by its `<desc>`, each bar's `<title>` its hover text, and a table under it
 * holds the same figures for a screen reader or a copy.
 */
import { type DayStats, STATS_DAYS, type Stats } from "../../operator/stats.js";
import { type Html, html, joinHtml } from "../../page-kit/html.js";
import { card, table } from "../../page-kit/layout.js";
import { SURFACES } from "../../service/checking/traffic-counter.js";

const WIDTH = 640;
const HEIGHT = 180;
/** Room for the scale at the left and the dates under the bars. */
const LEFT = 48;
const BOTTOM = 22;
const TOP = 8;
/** A list chart's row and its label's room. */
const ROW = 20;
const LABEL = 250;
/** Distinct colours, dark enough beside white, for up to eight series. */
const COLOURS = ["#1f4fbf", "#b3261e", "#1b7a43", "#8a4baf", "#b35c00", "#0e7c86", "#5b6270", "#a1306b"];
/** Reasons charted one by one; the rest are "Other". */
const REASONS_CHARTED = COLOURS.length - 1;

const numbers = new Intl.NumberFormat("en-US");
const n = (value: number) => numbers.format(value);

interface Series {
  label: string;
  colour: string;
}

interface DayBars {
  day: string;
  values: readonly number[];
}

/** A round top for the scale: 1, 2 or 5 times a power of ten, at least `most`. */
function scaleTop(most: number): number {
  if (most <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(most));
  for (const step of [1, 2, 5, 10]) if (step * power >= most) return step * power;
  return 10 * power;
}

/** A row of the legend inside the chart. */
const LEGEND_ROW = 16;

/** The legend drawn at the top of a chart: a swatch and a label per series, in rows that fit the width. */
function legend(series: readonly Series[]): { svg: Html; height: number } {
  let x = LEFT;
  let row = 0;
  const items = series.map((s) => {
    const width = 18 + s.label.length * 6.5 + 14;
    if (x + width > WIDTH && x > LEFT) {
      row++;
      x = LEFT;
    }
    const y = 4 + row * LEGEND_ROW;
    const item = html`<rect x="${x.toFixed(1)}" y="${y}" width="12" height="12" fill="${s.colour}"/><text x="${(x + 18).toFixed(1)}" y="${y + 10}" font-size="11" fill="#1f2937">${s.label}</text>`;
    x += width;
    return item;
  });
  return {
    svg: html`<g class="legend">${items}</g>`,
    height: series.length === 0 ? 0 : (row + 1) * LEGEND_ROW,
  };
}

/** A table of the same figures as a chart. */
function figuresTable(label: string, head: readonly string[], rows: readonly (readonly string[])[]): Html {
  return html`<details><summary>${label} as a table</summary>${table(label, head, rows, "", { rowHeaders: true })}</details>`;
}

/** Stacked bars, one per day, with a scale and dates. */
function dailyChart(
  id: string,
  title: string,
  unit: string,
  series: readonly Series[],
  days: readonly DayBars[],
): Html {
  const totals = days.map((day) => day.values.reduce((a, b) => a + b, 0));
  const top = scaleTop(Math.max(0, ...totals));
  const key = legend(series);
  const plotTop = TOP + key.height;
  const height = HEIGHT + key.height;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT) / Math.max(1, days.length);
  const y = (value: number) => plotTop + plotHeight - (value / top) * plotHeight;
  const grid = [0, top / 2, top].map(
    (value) =>
      html`<line x1="${LEFT}" y1="${y(value).toFixed(1)}" x2="${WIDTH}" y2="${y(value).toFixed(1)}" stroke="#d9dce1"/><text x="${LEFT - 4}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#1f2937">${n(value)}</text>`,
  );
  const bars = days.map((day, i) => {
    const x = LEFT + i * slot + 1;
    let base = 0;
    const parts = day.values.map((value, s) => {
      if (value === 0) return undefined;
      const rect = html`<rect x="${x.toFixed(1)}" y="${y(base + value).toFixed(1)}" width="${Math.max(1, slot - 2).toFixed(1)}" height="${(y(base) - y(base + value)).toFixed(1)}" fill="${series[s]?.colour ?? COLOURS[0]}"/>`;
      base += value;
      return rect;
    });
    const total = totals[i] ?? 0;
    const detail = series
      .map((s, index) => [s.label, day.values[index] ?? 0] as const)
      .filter(([, value]) => value > 0)
      .map(([label, value]) => `${label} ${n(value)}`)
      .join(", ");
    const hover = `${day.day}: ${n(total)} ${unit}${detail ? ` (${detail})` : ""}`;
    // The day's whole column, unpainted, takes the hover of a short bar or of none.
    const column = html`<rect x="${(x - 1).toFixed(1)}" y="${plotTop}" width="${slot.toFixed(1)}" height="${plotHeight}" fill="transparent"/>`;
    return html`<g class="bar" data-day="${day.day}" data-total="${total}"><title>${hover}</title>${column}${parts}</g>`;
  });
  // A date under the last bar (today) and every seventh before it.
  const dates = days.map(
    (day, i) =>
      (days.length - 1 - i) % 7 === 0 &&
      html`<text x="${(LEFT + i * slot + slot / 2).toFixed(1)}" y="${height - 6}" text-anchor="middle" font-size="11" fill="#1f2937">${day.day.slice(5)}</text>`,
  );
  const sum = totals.reduce((a, b) => a + b, 0);
  const first = days[0]?.day ?? "";
  const last = days.at(-1)?.day ?? "";
  const description = `${n(sum)} ${unit} from ${first} to ${last}; the scale goes from 0 to ${n(top)} a day.`;
  const svg = html`<svg class="chart" id="${id}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="${id}-title ${id}-desc" data-chart-total="${sum}">
<title id="${id}-title">${title}</title>
<desc id="${id}-desc">${description}</desc>
${key.svg}
${grid}
${joinHtml(bars)}
<line x1="${LEFT}" y1="${y(0)}" x2="${WIDTH}" y2="${y(0)}" stroke="#6b7280"/>
${dates}
</svg>`;
  const rows = days.map((day, i) => [day.day, ...day.values.map((value) => n(value)), n(totals[i] ?? 0)]);
  return html`<figure class="chart-figure">${svg}<figcaption>${description}</figcaption>${figuresTable(title, ["Day", ...series.map((s) => s.label), "Total"], rows)}</figure>`;
}

/** Horizontal bars of a list of the most seen, largest first. */
function listChart(
  id: string,
  title: string,
  unit: string,
  rows: readonly { label: string; value: number }[],
): Html {
  if (rows.length === 0) return html`<p class="muted">${title}: none in the last ${STATS_DAYS} days.</p>`;
  const most = Math.max(1, ...rows.map((row) => row.value));
  const height = rows.length * ROW + 4;
  const room = WIDTH - LABEL - 70;
  const bars = rows.map((row, i) => {
    const y = i * ROW + 2;
    const width = Math.max(1, (row.value / most) * room);
    const label = row.label.length > 38 ? `${row.label.slice(0, 37)}…` : row.label;
    return html`<g class="bar"><title>${`${row.label}: ${n(row.value)} ${unit}`}</title><text x="${LABEL - 6}" y="${y + 14}" text-anchor="end" font-size="12" fill="#1f2937">${label}</text><rect x="${LABEL}" y="${y + 3}" width="${width.toFixed(1)}" height="${ROW - 6}" fill="${COLOURS[0]}"/><text x="${(LABEL + width + 6).toFixed(1)}" y="${y + 14}" font-size="12" fill="#1f2937">${n(row.value)}</text></g>`;
  });
  const description = `${rows.length} rows, the first with ${n(rows[0]?.value ?? 0)} ${unit}, over the last ${STATS_DAYS} days.`;
  const svg = html`<svg class="chart-list" id="${id}" width="100%" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="${id}-title ${id}-desc">
<title id="${id}-title">${title}</title>
<desc id="${id}-desc">${description}</desc>
${joinHtml(bars)}
</svg>`;
  const tableRows = rows.map((row) => [row.label, n(row.value)]);
  return html`<figure class="chart-figure">${svg}${figuresTable(title, ["Name", unit], tableRows)}</figure>`;
}

const SURFACE_LABELS = { api: "API", bulk: "Bulk", jobs: "List jobs", pages: "Result pages" } as const;

function checksChart(days: readonly DayStats[]): Html {
  const series = SURFACES.map((surface, i) => ({
    label: SURFACE_LABELS[surface],
    colour: COLOURS[i] ?? "#000",
  }));
  return dailyChart(
    "chart-checks",
    "Checks per day by surface",
    "checks",
    series,
    days.map((day) => ({ day: day.day, values: SURFACES.map((surface) => day.checks[surface]) })),
  );
}

function blocksChart(stats: Stats): Html {
  const reasons = Object.keys(stats.totals.blocks);
  const charted = reasons.length > REASONS_CHARTED + 1 ? reasons.slice(0, REASONS_CHARTED) : reasons;
  const other = reasons.length > charted.length;
  const series = [...charted, ...(other ? ["Other"] : [])].map((reason, i) => ({
    label: reason,
    colour: COLOURS[i] ?? "#000",
  }));
  const days = stats.days.map((day) => {
    const values = charted.map((reason) => day.blocks[reason] ?? 0);
    if (other) values.push(day.blocked - values.reduce((a, b) => a + b, 0));
    return { day: day.day, values };
  });
  return dailyChart("chart-blocks", "Blocks per day by reason", "blocks", series, days);
}

/** The traffic cards of the desk's overview. */
export function trafficCards(stats: Stats): Html {
  const intro = html`<p class="muted">The last ${STATS_DAYS} UTC days, ${stats.from} to ${stats.to}, from the counters of every instance; also <code>GET /admin/stats</code> and <code>mailrisk stats</code>.</p>`;
  return joinHtml([
    card("traffic-checks-heading", "Checks per day", html`${intro}${checksChart(stats.days)}`),
    card("traffic-blocks-heading", "Blocks per day", blocksChart(stats)),
    card(
      "traffic-providers-heading",
      "Disposable providers seen most",
      listChart(
        "chart-providers",
        "Disposable providers seen most",
        "answers",
        stats.top_disposable_providers.map((row) => ({ label: row.provider, value: row.count })),
      ),
    ),
    card(
      "traffic-domains-heading",
      "Domains blocked most",
      listChart(
        "chart-domains",
        "Domains blocked most",
        "blocks",
        stats.top_blocked_domains.map((row) => ({ label: row.domain, value: row.count })),
      ),
    ),
    card(
      "traffic-accounts-heading",
      "Accounts that used the most",
      listChart(
        "chart-accounts",
        "Accounts that used the most",
        "units",
        stats.top_accounts.map((row) => ({ label: row.email, value: row.used })),
      ),
    ),
    card(
      "traffic-keys-heading",
      "Keys that used the most",
      listChart(
        "chart-keys",
        "Keys that used the most",
        "units",
        stats.top_keys.map((row) => ({
          label: `${row.name ?? row.prefix}${row.name ? ` (${row.prefix}…)` : "…"}${row.revoked ? ", revoked" : ""}`,
          value: row.used,
        })),
      ),
    ),
  ]);
}
