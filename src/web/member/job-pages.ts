/**
 * The account's list jobs (docs/jobs.md "On the account's pages"), for the logged-in account:
 *
 *   GET  /account/jobs                 the account's jobs and the upload form
 *   POST /account/jobs?csrf=…          an upload (multipart `file`), read as it streams
 *   GET  /account/jobs/progress        server-sent events: the jobs in progress, each second
 *   GET  /account/jobs/<id>            one job as `GET /v2/jobs/<id>` answers it (JSON)
 *   GET  /account/jobs/<id>/results    the results as a CSV download (`?only=allow|block`)
 *   POST /account/jobs/<id>/cancel     cancels a queued or running job
 *   POST /account/jobs/<id>/delete     deletes an ended job (cancels a running one)
 *
 * A plugin of its own: the upload's body reaches the handler as a stream (the pages'
 * multipart parser would collect it), so the CSRF check comes before a byte is stored.
 * The upload, the quota and the results go through the API's code. Another account's job
 * is a 404, as an unknown one.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyReply } from "fastify";
import { HttpProblem } from "../../http/http-problem.js";
import { jobQuota } from "../../http/job-quota.js";
import { isMultipart, uploadMultipart } from "../../http/multipart-form.js";
import {
  sendResults,
  spoolFull,
  tooManyAtOnce,
  uploadLimits,
  uploadOf,
} from "../../http/routes/job-routes.js";
import type { TypedApp } from "../../http/typed-app.js";
import { accountJson } from "../../operator/accounts.js";
import {
  cancelJob,
  createJob,
  type JobJson,
  type JobOwner,
  jobResults,
  listJobs,
  type ResultsFilter,
  removeJob,
  resultsFilename,
  showJob,
} from "../../operator/jobs.js";
import { refusalOf } from "../../operator/refusal.js";
import { packagePath } from "../../package-root.js";
import { html } from "../../page-kit/html.js";
import { card } from "../../page-kit/layout.js";
import { pagePolicyWith } from "../../page-kit/page-headers.js";
import { DOWNLOADS_PER_OWNER, UploadGate } from "../../service/jobs/upload-gate.js";
import { accountPage } from "./account-views.js";
import { isActiveJob, jobsTable, uploadForm } from "./job-views.js";
import { type AccountPagesDeps, type PageSession, type Session, send } from "./page-session.js";

/** The progress script, inline on the jobs page and allowed there by its hash. */
export const JOB_PROGRESS_FILE = packagePath("widget", "job-progress.js");

/** How often the progress stream reads the jobs it follows. */
const PROGRESS_EVERY_MS = 1000;
/** A progress stream ends after this many reads; the browser opens another (`retry`). */
const PROGRESS_READS = 600;

const FILTERS: Record<string, { only: ResultsFilter; suffix: string }> = {
  all: { only: "all", suffix: "" },
  allow: { only: "allow", suffix: "-allowed" },
  block: { only: "block", suffix: "-blocked" },
};

type JobParams = { Params: { id: string } };

/** A refusal about a job (unknown, another account's, not done) as the page's problem; anything else as it is. */
function jobProblem(error: unknown): never {
  const refusal = refusalOf(error);
  if (refusal?.code === "unknown_job")
    throw new HttpProblem("not_found", "There is no such list job in your account.");
  throw refusal ? new HttpProblem(refusal.code, refusal.message) : error;
}

/** Why an upload was refused, as the page says it beside the `File` field; undefined for a failure. */
function uploadProblem(error: unknown): HttpProblem | undefined {
  const refusal = refusalOf(error);
  const problem =
    refusal?.code === "server_busy"
      ? spoolFull(refusal.message)
      : refusal
        ? new HttpProblem(refusal.code, refusal.message)
        : error;
  if (!(problem instanceof HttpProblem) || problem.status >= 500) return undefined;
  // The account's upload has no `?column=`: the header names the column.
  const detail = problem.detail.replace(
    "name it with ?column=NAME|NUMBER",
    "name it email in the header row",
  );
  return new HttpProblem(problem.code, `${detail.charAt(0).toUpperCase()}${detail.slice(1)}`);
}

/**
 * The progress stream: a `job` event with a job's JSON each time it changed, for the jobs
 * in `ids` while they are queued or running; `end` once none is. Reads stop at `signal`,
 * and the stream ends as soon as its session has (log-out, suspension, deletion).
 */
async function* progressEvents(
  read: (id: string) => Promise<JobJson | undefined>,
  ids: readonly string[],
  signal: AbortSignal,
  sessionLives: () => Promise<boolean>,
): AsyncGenerator<string> {
  yield `retry: ${2 * PROGRESS_EVERY_MS}\n\n`;
  const sent = new Map<string, string>();
  let following = ids;
  for (let reads = 0; following.length > 0 && reads < PROGRESS_READS; reads++) {
    if (reads > 0) {
      try {
        await sleep(PROGRESS_EVERY_MS, undefined, { signal });
      } catch {
        return;
      }
      if (!(await sessionLives())) return;
    }
    const still: string[] = [];
    for (const id of following) {
      const job = await read(id);
      if (!job) continue;
      const data = JSON.stringify(job);
      if (sent.get(id) !== data) {
        sent.set(id, data);
        yield `event: job\ndata: ${data}\n\n`;
      }
      if (isActiveJob(job)) still.push(id);
    }
    following = still;
  }
  if (following.length === 0) yield "event: end\ndata: {}\n\n";
}

export async function jobPages(app: TypedApp, deps: AccountPagesDeps, pages: PageSession): Promise<void> {
  const { store, clock, config } = deps;
  const { session, loggedIn, checkCsrf } = pages;
  const script = readFileSync(JOB_PROGRESS_FILE, "utf8");
  const policy = pagePolicyWith({
    "script-src": [`'sha256-${createHash("sha256").update(script).digest("base64")}'`],
    "connect-src": ["'self'"],
  });
  const limits = uploadLimits(config);
  const gate =
    deps.uploadGate ??
    new UploadGate({ uploadsPerOwner: config.jobUploadsPerAccount, spoolMaxBytes: Number.POSITIVE_INFINITY });
  const retention = () => ({ now: clock(), retentionMs: config.jobRetentionSeconds * 1000 });
  const ownerOf = (found: Session): JobOwner => ({ kind: "account", id: found.account.id });
  /** The account cancelling or deleting, as the audit log names it. */
  const actorOf = (found: Session) => ({
    actor: { kind: "account", email: found.account.email } as const,
    store,
  });
  // Progress streams end when the server closes, so they hold no shutdown.
  const closing = new AbortController();
  app.addHook("preClose", async () => closing.abort());

  // The upload's body stays a stream: it is read by `uploadOf` (multipart-form.ts), after the CSRF check.
  uploadMultipart(app);

  const jobsPage = async (reply: FastifyReply, found: Session, error?: string, status = 200) => {
    const { jobs } = await listJobs(store, ownerOf(found));
    const body = html`${card("upload-heading", "Upload a list", uploadForm(found.csrf, limits, error))}
${card("jobs-heading", "Your list jobs", jobsTable(jobs, found.csrf))}`;
    const page = accountPage("Jobs", accountJson(found.account), found.csrf, body, script);
    return send(reply.header("content-security-policy", policy), page, status);
  };

  app.get("/account/jobs", { schema: { hide: true } }, async (request, reply) => {
    const found = await loggedIn(request, reply);
    if (!found) return reply;
    return jobsPage(reply, found);
  });

  app.post("/account/jobs", { schema: { hide: true } }, async (request, reply) => {
    const found = await session(request);
    checkCsrf(request, found?.csrf, "query");
    if (!found) return reply.redirect("/login", 303);
    if (!isMultipart(request)) return jobsPage(reply, found, "Choose a file to upload.", 415);
    const entered = gate.enterUpload(`account:${found.account.id}`);
    try {
      if (!entered) throw tooManyAtOnce("uploads", config.jobUploadsPerAccount);
      const upload = await uploadOf(request, undefined);
      // The account's own job, on its own count: no key is needed (docs/jobs.md "On the account's pages").
      const filer = { accountId: found.account.id };
      await createJob(store, filer, upload, {
        limits,
        quota: jobQuota({ ...filer, usage: store.usage }, clock()),
        now: clock(),
        spool: entered.spool,
      });
    } catch (error) {
      const problem = uploadProblem(error);
      if (!problem) throw error;
      return jobsPage(reply, found, problem.detail, problem.status);
    } finally {
      entered?.release();
    }
    return reply.redirect("/account/jobs", 303);
  });

  app.get("/account/jobs/progress", { schema: { hide: true } }, async (request, reply) => {
    const found = await loggedIn(request, reply);
    if (!found) return reply;
    const owner = ownerOf(found);
    const following = (await listJobs(store, owner)).jobs.filter(isActiveJob).map((job) => job.id);
    const read = (id: string) =>
      showJob(store, owner, id).catch((error: unknown) => {
        if (refusalOf(error)?.code === "unknown_job") return undefined;
        throw error;
      });
    reply.headers({
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    });
    const sessionLives = async () => (await session(request)) !== undefined;
    return reply.send(Readable.from(progressEvents(read, following, closing.signal, sessionLives)));
  });

  app.get<JobParams>("/account/jobs/:id", { schema: { hide: true } }, async (request, reply) => {
    const found = await loggedIn(request, reply);
    if (!found) return reply;
    const job = await showJob(store, ownerOf(found), request.params.id).catch(jobProblem);
    return reply.header("cache-control", "no-store").send(job);
  });

  app.get<JobParams & { Querystring: { only?: string } }>(
    "/account/jobs/:id/results",
    { schema: { hide: true } },
    async (request, reply) => {
      const found = await loggedIn(request, reply);
      if (!found) return reply;
      const filter = FILTERS[request.query.only ?? "all"];
      if (!filter) throw new HttpProblem("invalid_url", "`only` takes allow, block or all.");
      const { id } = request.params;
      const { job, chunks } = await jobResults(store, ownerOf(found), id, {
        format: "csv",
        only: filter.only,
      }).catch(jobProblem);
      const release = gate.enterDownload(`account:${found.account.id}`);
      if (!release) {
        await chunks.return(undefined);
        throw tooManyAtOnce("downloads", DOWNLOADS_PER_OWNER);
      }
      return sendResults(
        reply.header("cache-control", "no-store"),
        chunks,
        "csv",
        resultsFilename(job, "csv", filter.suffix),
        release,
      );
    },
  );

  app.post<JobParams>("/account/jobs/:id/cancel", { schema: { hide: true } }, async (request, reply) => {
    const found = await session(request);
    checkCsrf(request, found?.csrf);
    if (!found) return reply.redirect("/login", 303);
    await cancelJob(store, ownerOf(found), request.params.id, retention(), actorOf(found)).catch(jobProblem);
    return reply.redirect("/account/jobs", 303);
  });

  app.post<JobParams>("/account/jobs/:id/delete", { schema: { hide: true } }, async (request, reply) => {
    const found = await session(request);
    checkCsrf(request, found?.csrf);
    if (!found) return reply.redirect("/login", 303);
    await removeJob(store, ownerOf(found), request.params.id, retention(), actorOf(found)).catch(jobProblem);
    return reply.redirect("/account/jobs", 303);
  });
}
