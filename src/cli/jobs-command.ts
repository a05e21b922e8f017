/**
 * `mailrisk jobs list [--json]`, `jobs show <id> [--json]` and `jobs cancel <id> [--json]`
 * (docs/jobs.md): the operator's view of every key's list jobs, the CLI's adapter of
 * src/operator/jobs.ts. Exit codes: 0 done, 1 unknown job, 2 bad arguments.
 */
import { CLI_ACTOR } from "../operator/audit.js";
import { cancelJob, type JobJson, listJobs, OPERATOR, showJob } from "../operator/jobs.js";
import { parseArguments, runSubcommand, usageError } from "./arguments.js";
import type { CliContext } from "./context.js";
import { formatTable } from "./table.js";
import { usageOf } from "./usage-text.js";
import { listing, withStore, writeJson } from "./with-store.js";

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

/** `show` and `cancel`: one id, then the job as text or `--json`. */
function oneJob(form: "show" | "cancel", work: (id: string, ctx: CliContext) => Promise<JobJson>) {
  return async (args: string[], ctx: CliContext): Promise<number> => {
    const usage = usageOf("jobs", form);
    const result = parseArguments({ args, options: { json: { type: "boolean" } }, allowPositionals: true });
    if (!result.ok) return usageError(ctx, result.message, usage);
    const [id, ...extra] = result.parsed.positionals;
    if (id === undefined || extra.length > 0) return usageError(ctx, `jobs ${form} takes one id`, usage);
    const job = await work(id, ctx);
    if (result.parsed.values.json) writeJson(ctx, job);
    else ctx.stdout.write(jobsText({ jobs: [job] }));
    return 0;
  };
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  const list = (rest: string[], c: CliContext) =>
    listing(rest, c, usageOf("jobs", "list"), (store) => listJobs(store, OPERATOR), jobsText);
  const show = oneJob("show", (id, c) => withStore(c, (store) => showJob(store, OPERATOR, id)));
  const cancel = oneJob("cancel", (id, c) =>
    withStore(c, (store) =>
      cancelJob(
        store,
        OPERATOR,
        id,
        { now: c.clock(), retentionMs: c.config.jobRetentionSeconds * 1000 },
        { actor: CLI_ACTOR, store },
      ),
    ),
  );
  return runSubcommand("jobs", { list, show, cancel }, usageOf("jobs"), args, ctx);
}
