/**
 * Requests per day as an SVG bar chart made on the server (docs/accounts.md "The console"):
 * no script and no outside asset; each bar's `<title>` is its hover text.
 */
import { DAY_MS } from "../../core/time.js";
import { escapeHtml } from "../pages/layout.js";

export interface DayCount {
  day: Date;
  used: number;
}

const WIDTH = 600;
const HEIGHT = 160;

/** Bars for every UTC day from `from` to `to`, the previous period's grey, the current one's (from `current`) blue. */
export function usageChart(
  id: string,
  heading: string,
  counts: readonly DayCount[],
  from: Date,
  current: Date,
  to: Date,
): string {
  const first = from.getTime() - (from.getTime() % DAY_MS);
  const days = Math.max(1, Math.ceil((to.getTime() - first) / DAY_MS));
  const perDay = new Map<number, number>();
  for (const { day, used } of counts) perDay.set(day.getTime(), (perDay.get(day.getTime()) ?? 0) + used);
  const most = Math.max(1, ...perDay.values());
  const width = WIDTH / days;
  let currentTotal = 0;
  let previousTotal = 0;
  const bars: string[] = [];
  for (let i = 0; i < days; i++) {
    const day = first + i * DAY_MS;
    const used = perDay.get(day) ?? 0;
    const inCurrent = day + DAY_MS > current.getTime();
    if (inCurrent) currentTotal += used;
    else previousTotal += used;
    const height = used === 0 ? 0 : Math.max(2, (used / most) * (HEIGHT - 10));
    const label = `${new Date(day).toISOString().slice(0, 10)}: ${used} requests`;
    bars.push(
      `<rect x="${(i * width).toFixed(2)}" y="${(HEIGHT - height).toFixed(2)}" width="${Math.max(1, width - 1).toFixed(2)}" height="${height.toFixed(2)}" fill="${inCurrent ? "#1f4fbf" : "#8a93a3"}"><title>${label}</title></rect>`,
    );
  }
  const summary = `${currentTotal} requests this period, ${previousTotal} in the previous one`;
  return `<figure class="chart-figure">
<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title" data-chart-current="${currentTotal}" data-chart-previous="${previousTotal}">
<title id="${id}-title">${escapeHtml(`${heading}: ${summary}`)}</title>
<line x1="0" y1="${HEIGHT - 0.5}" x2="${WIDTH}" y2="${HEIGHT - 0.5}" stroke="#6b7280"/>
${bars.join("\n")}
</svg>
<figcaption class="muted">${escapeHtml(heading)}, per day: ${escapeHtml(summary)} (grey: the previous period).</figcaption>
</figure>`;
}
