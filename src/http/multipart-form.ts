/**
 * `multipart/form-data`, the one multipart path: every such body is streamed through
 * `@fastify/busboy` within its limits, never collected whole.
 * - The API's small forms (`POST /v2/`): the app's content-type parser, fields only,
 *   within the route's body limit (`addFieldsOnlyMultipartParser`).
 * - Uploads (`POST /v2/jobs`, the console's jobs, the account list's import): a scope
 *   that leaves the body unread (`uploadMultipart`), so its handler's checks (CSRF,
 *   access, quota) come before a byte is read; the handler then takes the `file` field
 *   as a stream (`fileField`) or reads a small form whole (`readSmallForm`).
 */
import type { Readable } from "node:stream";
import { Busboy, type BusboyConfig, type BusboyFileStream, type BusboyInstance } from "@fastify/busboy";
import { errorCodes, type FastifyInstance, type FastifyRequest } from "fastify";
import { HttpProblem } from "./http-problem.js";

/** Parts of an upload's form read at most (the file and a few fields beside it). */
const MAX_UPLOAD_PARTS = 20;
/** Fields of an API form read at most; its input fields come among them. */
const MAX_API_FIELDS = 100;

const unreadable = () => new HttpProblem("invalid_body", "The multipart/form-data body could not be read.");

export function isMultipart(request: FastifyRequest): boolean {
  return String(request.headers["content-type"] ?? "")
    .toLowerCase()
    .startsWith("multipart/form-data");
}

/** A busboy parser for the request's form within `limits`; `invalid_body` when its header names no boundary. */
function formParser(request: FastifyRequest, limits: NonNullable<BusboyConfig["limits"]>): BusboyInstance {
  try {
    return Busboy({
      headers: { ...request.headers, "content-type": String(request.headers["content-type"]) },
      limits,
    });
  } catch {
    throw unreadable();
  }
}

/** The request's body as it arrives: the stream a scope's parser left, or the raw request. */
function bodyOf(request: FastifyRequest): Readable {
  const body = request.body as Readable | undefined;
  return body && typeof body.pipe === "function" ? body : request.raw;
}

/** The fields a route's body schema declares. */
function declaredFields(request: FastifyRequest): Set<string> {
  const body = request.routeOptions.schema?.body as { properties?: Record<string, unknown> } | undefined;
  return new Set(Object.keys(body?.properties ?? {}));
}

/**
 * The app's parser of `multipart/form-data`: a form of fields only, streamed within the
 * route's body limit (413 the moment it passes), a file refused (`invalid_body`). Only
 * the fields the route's body schema declares are kept; a repeated one becomes an
 * array, which the schema then refuses.
 */
export function addFieldsOnlyMultipartParser(app: FastifyInstance): void {
  app.addContentTypeParser("multipart/form-data", (request, payload, done) => {
    const limit = request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 0;
    let received = 0;
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) finish(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    };
    let finished = false;
    const finish = (error: Error | null, fields?: Record<string, unknown>) => {
      if (finished) return;
      finished = true;
      // What is left of a refused body stays unread (the connection then closes, app.ts).
      payload.removeListener("data", count);
      payload.unpipe();
      if (error) payload.pause();
      done(error, fields);
    };
    if (Number(request.headers["content-length"]) > limit) {
      finish(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      return;
    }
    let form: BusboyInstance;
    try {
      form = formParser(request, { files: 0, fields: MAX_API_FIELDS, fieldSize: limit, headerPairs: 32 });
    } catch (error) {
      finish(error as Error);
      return;
    }
    const fields: Record<string, unknown> = {};
    const declared = declaredFields(request);
    form.on("field", (name, value) => {
      if (!declared.has(name)) return;
      const previous = fields[name];
      fields[name] = previous === undefined ? value : ([] as unknown[]).concat(previous, value);
    });
    form.on("filesLimit", () =>
      finish(new HttpProblem("invalid_body", "The form may carry only fields, not files.")),
    );
    form.on("fieldsLimit", () =>
      finish(new HttpProblem("invalid_body", `The form may carry at most ${MAX_API_FIELDS} fields.`)),
    );
    form.on("error", () => finish(unreadable()));
    form.on("finish", () => finish(null, fields));
    payload.on("error", () => finish(unreadable()));
    payload.on("data", count);
    payload.pipe(form);
  });
}

/** Leaves a `multipart/form-data` body in `app`'s scope unread until its handler asks (in place of the app's parser). */
export function uploadMultipart(app: FastifyInstance): void {
  app.removeContentTypeParser("multipart/form-data");
  app.addContentTypeParser("multipart/form-data", (_request, payload, done) => done(null, payload));
}

/**
 * Pipes the request's body into `form`; `brokeOff` is called when the body breaks off
 * before its end (so a file's reader never waits for an end that will not come). The
 * returned function stops the reading, leaving the rest of the body unread.
 */
function feed(request: FastifyRequest, form: BusboyInstance, brokeOff: (error: Error) => void): () => void {
  const body = bodyOf(request);
  const cutOff = () => {
    if (!request.raw.complete) brokeOff(new Error("The upload broke off."));
  };
  body.once("error", cutOff);
  request.raw.once("close", cutOff);
  body.pipe(form);
  return () => {
    body.unpipe(form);
    body.pause();
  };
}

/**
 * The form's `file` field: its stream, its declared type and its name. The parts before
 * it are skipped; the file's bytes are bounded by whoever reads the stream (the spool).
 */
export function fileField(
  request: FastifyRequest,
): Promise<{ contentType: string; filename: string | null; stream: Readable }> {
  return new Promise((resolve, reject) => {
    const form = formParser(request, {
      files: 1,
      parts: MAX_UPLOAD_PARTS,
      fields: MAX_UPLOAD_PARTS,
      fieldSize: 1024,
      headerPairs: 32,
    });
    let file: BusboyFileStream | null = null;
    form.on("file", (name, stream, filename, _encoding, mimeType) => {
      if (name !== "file") {
        stream.on("error", () => {}).resume();
        return;
      }
      file = stream;
      const contentType = mimeType.split(";")[0]?.trim().toLowerCase() ?? "";
      resolve({ contentType, filename: filename ? filename.slice(0, 255) : null, stream });
    });
    form.on("error", () => reject(unreadable()));
    form.on("finish", () =>
      reject(new HttpProblem("invalid_body", "The multipart/form-data body has no `file` field.")),
    );
    feed(request, form, (error) => {
      file?.destroy(error);
      reject(unreadable());
    });
  });
}

/** A form read whole: its fields (a file's text among them), or that a file passed its limit. */
export type SmallForm = { fields: Record<string, string> } | { fileTooLarge: true };

/**
 * Every field of a small form, a file's text included: a file over `maxFileBytes` stops
 * the reading (`fileTooLarge`), holding at most that many bytes. A repeated field keeps
 * its last value. `invalid_body` when the body cannot be read as multipart.
 */
export function readSmallForm(request: FastifyRequest, maxFileBytes: number): Promise<SmallForm> {
  return new Promise((resolve, reject) => {
    const form = formParser(request, {
      fileSize: maxFileBytes,
      parts: MAX_UPLOAD_PARTS,
      fields: MAX_UPLOAD_PARTS,
      fieldSize: 1024,
      headerPairs: 32,
    });
    const fields: Record<string, string> = Object.create(null);
    const files: Promise<void>[] = [];
    form.on("field", (name, value) => {
      fields[name] = value;
    });
    form.on("file", (name, stream) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("error", () => reject(unreadable()));
      stream.once("limit", () => {
        stop();
        resolve({ fileTooLarge: true });
      });
      files.push(
        new Promise((ended) =>
          stream.once("end", () => {
            fields[name] = Buffer.concat(chunks).toString("utf8");
            ended();
          }),
        ),
      );
    });
    form.on("error", () => reject(unreadable()));
    form.on("finish", () => {
      void Promise.all(files).then(() => resolve({ fields }));
    });
    const stop = feed(request, form, () => reject(unreadable()));
  });
}
