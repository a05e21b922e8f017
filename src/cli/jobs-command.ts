/**
 * `mailrisk jobs list [--json]`, `jobs show <id> [--json]` and `jobs cancel <id> [--json]`
 * (docs/jobs.md): the operator's view of every key's list jobs, the CLI's adapter of
 * src/operator/jobs.ts. Exit codes: 0 done, 1 unknown job, 2 bad arguments.
 */
import { CLI_ACTOR } from "../operator/audit.js";
import { cancelJob, type JobJson, listJobs, OPERATOR, showJob } from "../operator/jobs.js";
import type { Store } from "../store/index.js";
import { commandRunner, type Handler } from "./arguments.js";
import type { CliContext } from "./context.js";
import { formatTable } from "./table.js";
import { answer, listing, withStore } from "./with-store.js";

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

/** `show` and `cancel`: the job as text or `--json`. */
function oneJob(work: (store: Store, id: string, ctx: CliContext) => Promise<JobJson>): Handler<CliContext> {
  return async (given, ctx) => {
    const job = await withStore(ctx, (store) => work(store, given.words[0] ?? "", ctx));
    return answer(ctx, given, job, (one) => jobsText({ jobs: [one] }));
  };
}

export const run = commandRunner("jobs", {
  list: listing((store) => listJobs(store, OPERATOR), jobsText),
  show: oneJob((store, id) => showJob(store, OPERATOR, id)),
  cancel: oneJob((store, id, ctx) =>
    cancelJob(
      store,
      OPERATOR,
      id,
      { now: ctx.clock(), retentionMs: ctx.config.jobRetentionSeconds * 1000 },
      { actor: CLI_ACTOR, store },
    ),
  ),
});
