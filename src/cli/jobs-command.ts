/** `mailrisk jobs …` (docs/jobs.md): every key's list jobs; adapts src/operator/jobs.ts. */
import { CLI_ACTOR } from "../operator/audit.js";
import { cancelJob, type JobJson, listJobs, OPERATOR, showJob } from "../operator/jobs.js";
import { commandRunner } from "./arguments.js";
import { formatTable } from "./table.js";
import { answering } from "./with-store.js";

function jobsText({ jobs }: { jobs: JobJson[] }): string {
  const rows = jobs.map((job) => [
    job.id,
    job.status,
    `${job.done}/${job.items}`,
    `${job.counts.allow}/${job.counts.block}/${job.counts.invalid}/${job.counts.unknown}`,
    job.created_at,
    job.finished_at ?? "-",
  ]);
  return `${formatTable([["ID", "STATUS", "DONE", "ALLOW/BLOCK/INVALID/UNKNOWN", "CREATED", "FINISHED"], ...rows])}\n`;
}

/** One job, as `list` shows it. */
function jobText(job: JobJson): string {
  return jobsText({ jobs: [job] });
}

export const run = commandRunner("jobs", {
  list: answering((store) => listJobs(store, OPERATOR), jobsText),
  show: answering((store, { words: [id = ""] }) => showJob(store, OPERATOR, id), jobText),
  cancel: answering(
    (store, { words: [id = ""] }, ctx) =>
      cancelJob(
        store,
        OPERATOR,
        id,
        { now: ctx.clock(), retentionMs: ctx.config.jobRetentionSeconds * 1000 },
        { actor: CLI_ACTOR, store },
      ),
    jobText,
  ),
});
