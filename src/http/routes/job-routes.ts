/**
 * List jobs (docs/jobs.md): `POST /v2/jobs` stores an upload as a job, `GET /v2/jobs`,
 * `GET /v2/jobs/<id>` and `/results` read them, `DELETE /v2/jobs/<id>` cancels or
 * deletes one. Secret keys only; a job is its key's account's (or the key's, without
 * one). The upload is a stream, not a body under the API's 16 KiB limit: JOB_MAX_BYTES
 * and JOB_MAX_ITEMS bound it, and the server's request timeout still ends a client that
 * sends too slowly. With no unit left
 * an upload is refused (429) before its body is read; its items are counted when it is
 * stored, all or nothing. At most JOB_UPLOADS_PER_ACCOUNT uploads and two downloads of
 * one owner at once (429), and JOB_SPOOL_MAX_BYTES spooled (503): the UploadGate.
 * Every route carries the rate-limit headers.
 */
import { Readable } from "node:stream";
import { Type } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../../config.js";
import {
  CreatedJobSchema,
  createJob,
  JobListSchema,
  type JobOwner,
  JobSchema,
  jobResults,
  listJobs,
  type ResultsFormat,
  removeJob,
  resultsFilename,
  showJob,
  type Upload,
} from "../../operator/jobs.js";
import { refusalOf } from "../../operator/refusal.js";
import { DOWNLOADS_PER_OWNER, type UploadGate } from "../../service/jobs/upload-gate.js";
import type { JobsRepository, UsageRepository } from "../../store/index.js";
import type { AccessDeps } from "../access.js";
import { HttpProblem } from "../http-problem.js";
import { jobQuota } from "../job-quota.js";
import { fileField, uploadMultipart } from "../multipart-form.js";
import { problemFor, refusalProblem, sendProblem } from "../problem-response.js";
import { checkingResponses } from "../schemas.js";
import type { TypedApp } from "../typed-app.js";

/** The configuration an upload is read within. */
export type UploadConfig = Pick<
  Config,
  "jobMaxItems" | "jobMaxBytes" | "csvMaxColumns" | "csvMaxRecordBytes"
>;
/** The configuration of list jobs, read by the API's job routes and the account's job pages. */
export type JobsConfig = UploadConfig & Pick<Config, "jobRetentionSeconds" | "jobUploadsPerAccount">;

export interface JobRoutesDeps extends AccessDeps {
  jobs: JobsRepository;
  usage: AccessDeps["usage"] & Pick<UsageRepository, "authorizeKey">;
  uploadGate: UploadGate;
  config: JobsConfig;
}

/** Seconds a client is told to wait when the server's spool is full. */
const SPOOL_RETRY_AFTER_SECONDS = 5;

/** The limits an upload is read within. */
export function uploadLimits(config: UploadConfig) {
  return {
    maxItems: config.jobMaxItems,
    maxBytes: config.jobMaxBytes,
    csv: { maxColumns: config.csvMaxColumns, maxRecordBytes: config.csvMaxRecordBytes },
  };
}

/** 429: the owner sends (or downloads) as many at once as it may. */
export function tooManyAtOnce(what: "uploads" | "downloads", most: number): HttpProblem {
  return new HttpProblem(
    "too_many_concurrent_requests",
    `At most ${most} ${what} of one account (or key without one) run at once; wait for one to end.`,
    { "retry-after": "1" },
  );
}

/** 503: the server's spool is full (JOB_SPOOL_MAX_BYTES); the upload may come again shortly. */
export function spoolFull(message: string): HttpProblem {
  const detail = `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;
  return new HttpProblem("server_busy", detail, { "retry-after": String(SPOOL_RETRY_AFTER_SECONDS) });
}

const UPLOAD_TYPES = ["text/csv", "text/plain", "multipart/form-data"];

const JobParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

const ResultsQuery = Type.Object({
  format: Type.Optional(
    Type.Union([Type.Literal("csv"), Type.Literal("jsonl")], { description: "Default csv.", default: "csv" }),
  ),
  only: Type.Optional(
    Type.Union([Type.Literal("allow"), Type.Literal("block"), Type.Literal("all")], {
      description: "`block` keeps blocked and invalid inputs, as `check --only block`; default all.",
      default: "all",
    }),
  ),
  raw: Type.Optional(
    Type.Union([Type.Literal("true"), Type.Literal("false")], {
      description:
        "`true`: every cell as uploaded; by default a cell that would start a spreadsheet formula (`=`, `+`, `-`, `@`, tab, CR; not a plain number) gets a `'` in front.",
      default: "false",
    }),
  ),
});

function responses() {
  const base = checkingResponses(JobSchema, { readsBody: false, challenges: true });
  const { 200: ok, 401: unauthorized, 403: forbidden, 429: quota, 500: failed, 503: down } = base;
  const common = { 401: unauthorized, 403: forbidden, 429: quota, 500: failed, 503: down };
  const unknown = { ...base[400], description: "No job of that id of this key (unknown_job)." };
  return {
    created: {
      ...common,
      202: {
        ...ok,
        description:
          "The upload is stored and queued; each item counted one unit. `Location` names the job (`/v2/jobs/<id>`).",
        headers: { ...ok.headers, location: { schema: { type: "string" }, description: "The job's URL." } },
        content: { "application/json": { schema: CreatedJobSchema } },
      },
      400: {
        ...base[400],
        description: "An empty list, a CSV that cannot be read or without an address column (invalid_body).",
      },
      413: {
        ...base[400],
        description:
          "Over JOB_MAX_BYTES or JOB_MAX_ITEMS, wider than CSV_MAX_COLUMNS or with a record (line) longer than CSV_MAX_RECORD_BYTES, the line named (body_too_large); nothing kept.",
      },
      415: {
        ...base[400],
        description: "Not text/csv, text/plain or multipart/form-data (unsupported_media_type).",
      },
      429: {
        ...quota,
        description:
          "No unit left (before the body is read) or fewer than the upload's lines (quota_exceeded); or JOB_UPLOADS_PER_ACCOUNT uploads of this account already running (too_many_concurrent_requests). Nothing counted or kept.",
      },
      503: {
        ...down,
        description:
          "The database is unreachable, or the server's spool holds JOB_SPOOL_MAX_BYTES (server_busy); `Retry-After` says when to send again.",
      },
    },
    list: {
      ...common,
      200: {
        ...ok,
        description: "This key's jobs, newest first.",
        content: { "application/json": { schema: JobListSchema } },
      },
    },
    show: { ...common, 200: { ...ok, description: "The job." }, 404: unknown },
    results: {
      ...common,
      200: {
        ...ok,
        description:
          "The results in input order: the uploaded CSV with the `mr_` columns of `check --csv` (a text upload: an `input` column), or JSON Lines: `input` then the record, or the input's problem.",
        content: { "text/csv": { schema: Type.String() }, "application/jsonl": { schema: Type.String() } },
      },
      400: {
        ...base[400],
        description:
          "`format` (csv, jsonl), `only` (allow, block, all) or `raw` (true, false) outside its values (invalid_url).",
      },
      404: unknown,
      409: { ...base[400], description: "The job is queued, running or failed (job_not_done)." },
      429: {
        ...quota,
        description:
          "Two downloads of this account (or key without one) already running (too_many_concurrent_requests).",
      },
    },
    remove: {
      ...common,
      200: {
        ...ok,
        description: "The job was queued or running: it is cancelled, its unchecked items given back.",
      },
      204: { description: "The job had ended: it is deleted with its results." },
      404: unknown,
    },
  };
}

/** The upload of a request: the body's stream, or its multipart `file` field (the console's uploads too). */
export async function uploadOf(request: FastifyRequest, column: string | undefined): Promise<Upload> {
  const contentType = String(request.headers["content-type"] ?? "").toLowerCase();
  const body = request.body as Readable;
  if (contentType.startsWith("text/csv")) return { body, kind: "csv", column, filename: null };
  if (contentType.startsWith("text/plain")) return { body, kind: "text", column, filename: null };
  const part = await fileField(request);
  return {
    body: part.stream,
    kind: part.contentType === "text/plain" ? "text" : "csv",
    column,
    filename: part.filename,
  };
}

/**
 * A job's results streamed as a download named `filename` (the console's downloads too):
 * pulled a page at a time as the socket drains (back-pressure), `release` called once
 * the response ends, however it ends.
 */
export function sendResults(
  reply: FastifyReply,
  chunks: AsyncGenerator<string>,
  format: ResultsFormat,
  filename: string,
  release: () => void = () => {},
) {
  const type = format === "csv" ? "text/csv; charset=utf-8" : "application/jsonl; charset=utf-8";
  reply.type(type).header("content-disposition", `attachment; filename="${filename}"`);
  reply.raw.once("close", release);
  // A stream is sent as it is, never serialised; the schema's string describes it for /openapi.json.
  return reply.send(Readable.from(chunks, { highWaterMark: 1 }) as unknown as string);
}

/** Who an upload or a download is counted for at once: the key's account, or the key without one. */
function gateOwner(request: FastifyRequest): string {
  const key = request.caller?.key;
  if (!key) throw new Error("a job route ran without the access hook");
  return key.account ? `account:${key.account.id}` : `key:${key.id}`;
}

function ownerOf(request: FastifyRequest): JobOwner {
  const key = request.caller?.key;
  if (!key) throw new Error("a job route ran without the access hook");
  // An account's keys see each other's jobs; a key without an account, its own.
  return key.account ? { kind: "account", id: key.account.id } : { kind: "key", id: key.id };
}

/** Declared inside the checking plugin's access scope (key, rate-limit headers; `units: 0` counts nothing there). */
export async function jobRoutes(app: TypedApp, deps: JobRoutesDeps): Promise<void> {
  const retention = () => ({ now: deps.clock(), retentionMs: deps.config.jobRetentionSeconds * 1000 });
  const store = { jobs: deps.jobs };
  const schemas = responses();
  // The upload reaches the handler as a stream; the API's parsers (and their 16 KiB) stay outside this scope.
  uploadMultipart(app);
  app.addContentTypeParser(["text/csv", "text/plain"], (_request, payload, done) => done(null, payload));
  app.setErrorHandler((error, request, reply) => {
    const refusal = refusalOf(error);
    const problem =
      refusal?.code === "server_busy"
        ? spoolFull(refusal.message)
        : refusal
          ? refusalProblem(refusal)
          : problemFor(error, request.log);
    sendProblem(reply, problem);
  });
  const security = [{ bearerKey: [] }];
  const config = { credentials: "bearer", units: 0 } as const;

  app.route({
    method: "POST",
    url: "/v2/jobs",
    // No unit left: 429 from the access hook, before a byte of the body is read.
    config: { ...config, needsQuotaLeft: true },
    schema: {
      summary: "Upload a list to check in the background (one unit per item)",
      description:
        "Takes the list as the body: `text/csv` with a header row (the address column found as `check --csv` finds it, or named by `?column=`), `text/plain` with one address or domain per line, or `multipart/form-data` with a `file` field. Streamed to the database; at most JOB_MAX_BYTES and JOB_MAX_ITEMS (413, nothing kept). Each item counts one unit, all or nothing (429, nothing counted or kept). Answers 202 once stored; poll `GET /v2/jobs/<id>`.",
      tags: ["jobs"],
      security,
      consumes: UPLOAD_TYPES,
      querystring: Type.Object({ column: Type.Optional(Type.String({ maxLength: 256 })) }),
      // Described, not validated: the handler reads it as a stream.
      body: Type.Unsafe<unknown>({
        description:
          "The list: a CSV with a header row, text with one input per line, or a form with a `file` field.",
      }),
      response: schemas.created,
    },
    preValidation: async (request) => {
      if (!(request.body instanceof Readable)) {
        throw new HttpProblem(
          "unsupported_media_type",
          "Send the list as text/csv, text/plain or multipart/form-data with a `file` field.",
        );
      }
    },
    handler: async (request, reply) => {
      const entered = deps.uploadGate.enterUpload(gateOwner(request));
      if (!entered) throw tooManyAtOnce("uploads", deps.config.jobUploadsPerAccount);
      try {
        const caller = request.caller;
        if (!caller) throw new Error("a job route ran without the access hook");
        const filer = { keyId: caller.key.id };
        const quota = jobQuota({ ...filer, usage: deps.usage }, caller.now, (counted, units) => {
          request.caller = { ...caller, quota: counted, units };
        });
        const upload = await uploadOf(request, request.query.column);
        const created = await createJob(store, filer, upload, {
          limits: uploadLimits(deps.config),
          quota,
          now: deps.clock(),
          spool: entered.spool,
        });
        reply.code(202).header("location", `/v2/jobs/${created.id}`);
        return created;
      } finally {
        entered.release();
      }
    },
  });

  app.route({
    method: "GET",
    url: "/v2/jobs",
    config,
    schema: { summary: "This key's list jobs", tags: ["jobs"], security, response: schemas.list },
    handler: async (request) => listJobs(store, ownerOf(request)),
  });

  app.route({
    method: "GET",
    url: "/v2/jobs/:id",
    config,
    schema: {
      summary: "A list job's progress",
      tags: ["jobs"],
      security,
      params: JobParams,
      response: schemas.show,
    },
    handler: async (request) => showJob(store, ownerOf(request), request.params.id),
  });

  app.route({
    method: "GET",
    url: "/v2/jobs/:id/results",
    config,
    schema: {
      summary: "A done list job's results, streamed",
      tags: ["jobs"],
      security,
      params: JobParams,
      querystring: ResultsQuery,
      response: schemas.results,
    },
    handler: async (request, reply) => {
      const { format = "csv", only = "all", raw } = request.query;
      const { job, chunks } = await jobResults(store, ownerOf(request), request.params.id, {
        format,
        only,
        raw: raw === "true",
      });
      const release = deps.uploadGate.enterDownload(gateOwner(request));
      if (!release) {
        await chunks.return(undefined);
        throw tooManyAtOnce("downloads", DOWNLOADS_PER_OWNER);
      }
      return sendResults(reply, chunks, format, resultsFilename(job, format), release);
    },
  });

  app.route({
    method: "DELETE",
    url: "/v2/jobs/:id",
    config,
    schema: {
      summary: "Cancel a running list job, or delete an ended one",
      tags: ["jobs"],
      security,
      params: JobParams,
      response: schemas.remove,
    },
    handler: async (request, reply) => {
      const cancelled = await removeJob(store, ownerOf(request), request.params.id, retention());
      if (cancelled === null) return reply.code(204).send();
      return cancelled;
    },
  });
}
