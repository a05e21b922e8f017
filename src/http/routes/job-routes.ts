/**
 * List jobs (docs/jobs.md): `POST /v2/jobs` stores an upload as a job, `GET /v2/jobs`,
 * `GET /v2/jobs/<id>` and `/results` read them, `DELETE /v2/jobs/<id>` cancels or
 * deletes one. Secret keys only; a job is its key's. The upload is a stream, not a body
 * under the API's 16 KiB limit: JOB_MAX_BYTES and JOB_MAX_ITEMS bound it, and the
 * server's request timeout still ends a client that sends too slowly. Its items are
 * counted when it is stored, all or nothing; every route carries the rate-limit headers.
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
  showJob,
  type Upload,
} from "../../operator/jobs.js";
import { refusalOf } from "../../operator/refusal.js";
import type { JobsRepository } from "../../store/types.js";
import { type AccessDeps, countUnits } from "../access.js";
import { HttpProblem } from "../http-problem.js";
import { problemFor, refusalProblem, sendProblem } from "../problem-response.js";
import { checkingResponses } from "../schemas.js";
import type { TypedApp } from "../typed-app.js";
import { boundaryOf, filePart } from "../upload-file-part.js";

export interface JobRoutesDeps extends AccessDeps {
  jobs: JobsRepository;
  config: Pick<Config, "jobMaxItems" | "jobMaxBytes" | "jobRetentionSeconds">;
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
        description: "The upload is stored and queued; each item counted one unit.",
        content: { "application/json": { schema: CreatedJobSchema } },
      },
      400: {
        ...base[400],
        description: "An empty list, a CSV that cannot be read or without an address column (invalid_body).",
      },
      413: {
        ...base[400],
        description: "Over JOB_MAX_BYTES or JOB_MAX_ITEMS (body_too_large); nothing kept.",
      },
      415: {
        ...base[400],
        description: "Not text/csv, text/plain or multipart/form-data (unsupported_media_type).",
      },
      429: {
        ...quota,
        description: "Fewer units of quota left than items (quota_exceeded); nothing counted or kept.",
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
      404: unknown,
      409: { ...base[400], description: "The job is not done (job_not_done)." },
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
  if (contentType.startsWith("text/csv")) return { body, kind: "csv", column };
  if (contentType.startsWith("text/plain")) return { body, kind: "text", column };
  const boundary = boundaryOf(String(request.headers["content-type"]));
  if (!boundary)
    throw new HttpProblem("invalid_body", "The multipart/form-data content type names no boundary.");
  const part = await filePart(body, boundary);
  return { body: part.stream, kind: part.contentType === "text/plain" ? "text" : "csv", column };
}

/** A job's results streamed as a download named `filename` (the console's downloads too). */
export function sendResults(
  reply: FastifyReply,
  chunks: AsyncGenerator<string>,
  format: ResultsFormat,
  filename: string,
) {
  const type = format === "csv" ? "text/csv; charset=utf-8" : "application/jsonl; charset=utf-8";
  reply.type(type).header("content-disposition", `attachment; filename="${filename}"`);
  // A stream is sent as it is, never serialised; the schema's string describes it for /openapi.json.
  return reply.send(Readable.from(chunks) as unknown as string);
}

function ownerOf(request: FastifyRequest): NonNullable<JobOwner> {
  const caller = request.caller;
  if (!caller) throw new Error("a job route ran without the access hook");
  // An account's keys see each other's jobs; a key without an account, its own.
  return { keyId: caller.key.id, accountId: caller.key.account?.id ?? null };
}

/** Declared inside the checking plugin's access scope (key, rate-limit headers; `units: 0` counts nothing there). */
export async function jobRoutes(app: TypedApp, deps: JobRoutesDeps): Promise<void> {
  const retention = () => ({ now: deps.clock(), retentionMs: deps.config.jobRetentionSeconds * 1000 });
  const store = { jobs: deps.jobs };
  const schemas = responses();
  // The upload reaches the handler as a stream; the API's parsers (and their 16 KiB) stay outside this scope.
  app.removeContentTypeParser("multipart/form-data");
  app.addContentTypeParser(UPLOAD_TYPES, (_request, payload, done) => done(null, payload));
  app.setErrorHandler((error, request, reply) => {
    const refusal = refusalOf(error);
    sendProblem(reply, refusal ? refusalProblem(refusal) : problemFor(error, request.log));
  });
  const security = [{ bearerKey: [] }];
  const config = { credentials: "bearer", units: 0 } as const;

  app.route({
    method: "POST",
    url: "/v2/jobs",
    config,
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
      const upload = await uploadOf(request, request.query.column);
      const created = await createJob(store, ownerOf(request), upload, {
        limits: { maxItems: deps.config.jobMaxItems, maxBytes: deps.config.jobMaxBytes },
        reserve: async (items) => (await countUnits(deps, request, items)).periodStart,
        now: deps.clock(),
      });
      reply.code(202);
      return created;
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
      const { format = "csv", only = "all" } = request.query;
      const chunks = await jobResults(store, ownerOf(request), request.params.id, { format, only });
      return sendResults(reply, chunks, format, `${request.params.id}.${format}`);
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
