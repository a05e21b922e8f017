/**
 * The HTML of the account's list jobs page (docs/jobs.md "On the account's pages"): the upload
 * form, and each job with its `<progress>`, counts, downloads and buttons. The cells the
 * progress script (widget/job-progress.js) updates carry `data-field`; what it shows or
 * hides by status carries `data-downloads`, `data-cancel`, `data-delete`.
 */
import type { JobJson } from "../../operator/jobs.js";
import { type Html, html } from "../../page-kit/html.js";
import { field, form } from "../../page-kit/layout.js";
import { readableCount, timeHtml } from "../../page-kit/readable.js";

const ACTIVE: readonly string[] = ["queued", "running", "paused"];

export function isActiveJob(job: JobJson): boolean {
  return ACTIVE.includes(job.status);
}

/** A byte size as people read it: `100 MB`, `1.5 GB`, `512 bytes`. */
function bytesText(bytes: number): string {
  for (const [unit, size] of [
    ["GB", 1e9],
    ["MB", 1e6],
    ["kB", 1e3],
  ] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

/**
 * The upload form: a multipart POST whose CSRF token rides in its query (checked before
 * the body is read), a file input labelled `File` with its error beside it. The job is
 * the account's: no key is needed.
 */
export function uploadForm(
  csrf: string,
  limits: { maxItems: number; maxBytes: number },
  error?: string,
): Html {
  const hint = html`A CSV with a header row (its address column found as <code>check --csv</code> finds it), or a text file with one address or domain per line; at most ${limits.maxItems.toLocaleString("en")} lines and ${bytesText(limits.maxBytes)}. Each line counts one unit of your quota when the file is stored. The job belongs to your account: it is counted on your account's quota, and your account's secret keys see it too (<code>GET /v2/jobs</code>).`;
  return form({
    // No csrf field: the token rides in the query, read before the body.
    action: `/account/jobs?csrf=${encodeURIComponent(csrf)}`,
    csrf: undefined,
    fields: field({
      name: "file",
      label: "File",
      type: "file",
      accept: ".csv,.txt,text/csv,text/plain",
      required: true,
      error,
      hint,
    }),
    button: "Upload",
    multipart: true,
    method: "post",
  });
}

function countsText(job: JobJson): string {
  const { allow, block, invalid, unknown } = job.counts;
  const [a, b, i, u] = [allow, block, invalid, unknown].map(readableCount);
  return `allow ${a} · block ${b} · invalid ${i} · unknown ${u}`;
}

/** One job's row: `id="job-<id>"`, its status in `data-status`. */
function jobRow(job: JobJson, csrf: string): Html {
  const { id } = job;
  const name = `job-${id}-name`;
  const path = `/account/jobs/${encodeURIComponent(job.id)}`;
  const active = isActiveJob(job);
  const hidden = (yes: boolean) => yes && " hidden";
  const download = (only: string, text: string) =>
    html`<li><a href="${path}/results${only}" aria-describedby="${name}">${text}</a></li>`;
  const action = (verb: string, text: string, hide: boolean, data: string) =>
    html`<form class="inline" method="post" action="${path}/${verb}" data-${data}${hidden(hide)}><input type="hidden" name="csrf" value="${csrf}"><button type="submit" aria-describedby="${name}">${text}</button></form>`;
  return html`<tr id="job-${id}" data-job="${id}" data-status="${job.status}">
<th scope="row"><code id="${name}">${id}</code>${job.filename && html` <span class="muted">${job.filename}</span>`}</th>
<td data-field="status" class="state">${job.status}</td>
<td><progress max="${job.items}" value="${job.done}" aria-label="Progress of list job ${id}">${readableCount(job.done)} of ${readableCount(job.items)}</progress>
<span data-field="done">${readableCount(job.done)}</span> of ${readableCount(job.items)} items</td>
<td data-field="counts">${countsText(job)}</td>
<td>${timeHtml(job.created_at)}</td>
<td data-field="finished">${job.finished_at ? timeHtml(job.finished_at) : "—"}</td>
<td><ul class="links" data-downloads${hidden(job.status !== "done" && job.status !== "cancelled")}>${download("", "Download")}${download("?only=allow", "Download allowed")}${download("?only=block", "Download blocked")}</ul>
${action("cancel", "Cancel", !active, "cancel")}${action("delete", "Delete", active, "delete")}</td>
</tr>`;
}

/** The account's jobs, newest first, and the live region the script tells a job's end in. */
export function jobsTable(jobs: readonly JobJson[], csrf: string): Html {
  const live = html`<p id="jobs-live" class="muted" role="status"></p>`;
  if (jobs.length === 0) return html`<p class="muted">No list uploaded yet.</p>\n${live}`;
  return html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Job</th><th scope="col">Status</th><th scope="col">Progress</th><th scope="col">Outcomes</th><th scope="col">Created</th><th scope="col">Finished</th><th scope="col">Results</th></tr></thead>
<tbody>${jobs.map((job) => jobRow(job, csrf))}</tbody></table></div>
${live}`;
}
