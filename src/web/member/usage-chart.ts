/**
 * Use per day as an SVG bar chart made on the server (docs/accounts.md "The account's pages"): no
 * script and no outside asset; each bar's `<title>` is its hover text, the bars are
 * labelled with their dates and the axis with a scale. A day's figure is what was
 * counted that day less what was given back that day (a cancelled job's unchecked
 * items), so a period's bars add up to the quota's `used`.
 */
import { DAY_MS } from "../../core/time.js";
import { type Html, html, joinHtml } from "../../page-kit/html.js";
import { readableCount, readableDay, shortDay } from "../../page-kit/readable.js";

export interface DayCount {
  day: Date;
  used: number;
}

const WIDTH = 640;
const HEIGHT = 200;
/** Room for the scale's figures on the left and the dates below. */
const LEFT = 52;
const BOTTOM = 22;
const TOP = 8;
const PLOT_WIDTH = WIDTH - LEFT - 4;
const PLOT_HEIGHT = HEIGHT - BOTTOM - TOP;
/** Date labels under the bars, at most. */
const DATE_LABELS = 6;

/** A round top for the scale (1, 2 or 5 times a power of ten) at or above `most`. */
function scaleTop(most: number): number {
  if (most <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(most));
  const step = [1, 2, 5, 10].find((factor) => factor * power >= most) ?? 10;
  return step * power;
}

export interface ChartOptions {
  /** The unit's plural in words ("checks"). */
  unit: string;
}

/**
 * Bars for every UTC day from `from` to `to`, the previous period's grey, the current
 * one's (from `current`) blue; `data-chart-current` holds the current period's total.
 */
export function usageChart(
  id: string,
  heading: string,
  counts: readonly DayCount[],
  from: Date,
  current: Date,
  to: Date,
  { unit }: ChartOptions = { unit: "checks" },
): Html {
  const first = from.getTime() - (from.getTime() % DAY_MS);
  const days = Math.max(1, Math.ceil((to.getTime() - first) / DAY_MS));
  const perDay = new Map<number, number>();
  for (const { day, used } of counts) perDay.set(day.getTime(), (perDay.get(day.getTime()) ?? 0) + used);
  const top = scaleTop(Math.max(0, ...perDay.values()));
  const width = PLOT_WIDTH / days;
  let currentTotal = 0;
  let previousTotal = 0;
  const bars: Html[] = [];
  const dates: Html[] = [];
  const every = Math.max(1, Math.ceil(days / DATE_LABELS));
  const baseline = TOP + PLOT_HEIGHT;
  for (let i = 0; i < days; i++) {
    const day = first + i * DAY_MS;
    const used = perDay.get(day) ?? 0;
    const inCurrent = day + DAY_MS > current.getTime();
    if (inCurrent) currentTotal += used;
    else previousTotal += used;
    const height = used <= 0 ? 0 : Math.max(2, (used / top) * PLOT_HEIGHT);
    const x = LEFT + i * width;
    const label = `${readableDay(new Date(day))}: ${readableCount(used)} ${unit}`;
    bars.push(
      html`<rect x="${x.toFixed(2)}" y="${(baseline - height).toFixed(2)}" width="${Math.max(1, width - 1).toFixed(2)}" height="${height.toFixed(2)}" fill="${inCurrent ? "#1f4fbf" : "#8a93a3"}" data-day="${new Date(day).toISOString().slice(0, 10)}" data-used="${used}"><title>${label}</title></rect>`,
    );
    // Every `every` days, and the last day unless the label before it is too near.
    if (i % every === 0 || (i === days - 1 && i % every >= every / 2)) {
      dates.push(
        html`<text x="${(x + width / 2).toFixed(2)}" y="${HEIGHT - 6}" text-anchor="middle" font-size="11" fill="#374151">${shortDay(new Date(day))}</text>`,
      );
    }
  }
  const scale = [0, top / 2, top].filter(Number.isInteger).map((value) => {
    const y = baseline - (value / top) * PLOT_HEIGHT;
    return html`<line x1="${LEFT - 4}" y1="${y.toFixed(2)}" x2="${WIDTH - 4}" y2="${y.toFixed(2)}" stroke="#d1d5db"/><text x="${LEFT - 8}" y="${(y + 4).toFixed(2)}" text-anchor="end" font-size="11" fill="#374151">${readableCount(value)}</text>`;
  });
  const summary = `${readableCount(currentTotal)} ${unit} this period, ${readableCount(previousTotal)} in the previous one`;
  return html`<figure class="chart-figure">
<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title" data-chart-current="${currentTotal}" data-chart-previous="${previousTotal}">
<title id="${id}-title">${heading}: ${summary}</title>
${joinHtml(scale)}
<line x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${baseline}" stroke="#6b7280"/>
${joinHtml(bars)}
${joinHtml(dates)}
</svg>
<figcaption class="muted">${heading}, per day: ${summary} (grey: the previous period; a day's bar is what was counted that day less what was given back).</figcaption>
</figure>`;
}
