// @ts-check
/**
 * The console's list jobs page (`/account/jobs`, docs/jobs.md "In the console"), inline
 * and allowed by its hash: while a job on the page is queued or running, it follows
 * `GET /account/jobs/progress` (server-sent events, one connection for the page) and
 * moves each job's `<progress>`, its counts and status, and shows its downloads once it
 * is done. Without it the page still works: a reload shows the state.
 */
(() => {
  const ACTIVE = ["queued", "running", "paused"];
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  /** A count as the page shows it: `1,234`. @param {number} n */
  const count = (n) => n.toLocaleString("en-US");
  /** A time as the page shows it: `27 Nov 2026, 18:36 UTC`. @param {string} iso */
  const readable = (iso) => {
    const at = new Date(iso);
    const two = (/** @type {number} */ n) => String(n).padStart(2, "0");
    return `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}, ${two(at.getUTCHours())}:${two(at.getUTCMinutes())} UTC`;
  };
  const rows = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("tr[data-job]"));
  if (![...rows].some((row) => ACTIVE.includes(row.dataset.status ?? ""))) return;
  const live = document.getElementById("jobs-live");

  /**
   * @typedef {{ allow: number, block: number, invalid: number, unknown: number }} Counts
   * @typedef {{ id: string, status: string, items: number, done: number, counts: Counts, finished_at: string | null }} Job
   */

  /** @param {HTMLElement} row @param {string} name @param {string} text */
  const show = (row, name, text) => {
    const cell = row.querySelector(`[data-field="${name}"]`);
    if (cell) cell.textContent = text;
  };

  /** @param {Job} job */
  const update = (job) => {
    const row = document.getElementById(`job-${job.id}`);
    if (!row) return;
    const was = row.dataset.status;
    row.dataset.status = job.status;
    const progress = row.querySelector("progress");
    if (progress) {
      progress.max = job.items;
      progress.value = job.done;
      progress.textContent = `${count(job.done)} of ${count(job.items)}`;
    }
    show(row, "status", job.status);
    show(row, "done", count(job.done));
    const { allow, block, invalid, unknown } = job.counts;
    show(
      row,
      "counts",
      `allow ${count(allow)} · block ${count(block)} · invalid ${count(invalid)} · unknown ${count(unknown)}`,
    );
    show(row, "finished", job.finished_at ? readable(job.finished_at) : "—");
    const active = ACTIVE.includes(job.status);
    for (const [selector, hidden] of /** @type {[string, boolean][]} */ ([
      // A cancelled job's results hold the rows checked before the cancel.
      ["[data-downloads]", job.status !== "done" && job.status !== "cancelled"],
      ["[data-cancel]", !active],
      ["[data-delete]", active],
    ])) {
      const element = /** @type {HTMLElement | null} */ (row.querySelector(selector));
      if (element) element.hidden = hidden;
    }
    if (live && was !== job.status && !active) live.textContent = `List job ${job.id} is ${job.status}.`;
  };

  const follow = () => {
    const source = new EventSource("/account/jobs/progress");
    source.addEventListener("job", (event) => update(JSON.parse(/** @type {MessageEvent} */ (event).data)));
    source.addEventListener("end", () => source.close());
    // Refused (the session ended, too many requests): try again a little later; a reload also does.
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED) setTimeout(follow, 10_000);
    });
  };
  follow();
})();
