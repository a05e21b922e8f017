/**
 * The `file` field of a `multipart/form-data` upload (`POST /v2/jobs`, the console's
 * jobs page), streamed by `@fastify/multipart` as it arrives: the body is never
 * collected, the parts before the file are skipped. The route's scope registers the
 * plugin with `uploadMultipart()`, after its own CSRF and access checks have run in hooks
 * or before the handler asks for the file (nothing is read before).
 */
import fastifyMultipart from "@fastify/multipart";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { HttpProblem } from "./http-problem.js";

/** Parts of an upload's form read at most (the file and a few fields beside it). */
const MAX_PARTS = 20;

/** Registers `@fastify/multipart` in `app`'s scope (in place of the app's form parser), its file at most `maxBytes`. */
export async function uploadMultipart(app: FastifyInstance, maxBytes: number): Promise<void> {
  app.removeContentTypeParser("multipart/form-data");
  await app.register(fastifyMultipart, {
    // The spool counts the bytes and refuses past JOB_MAX_BYTES; busboy only needs an upper bound.
    limits: {
      fileSize: maxBytes + 1,
      files: 1,
      parts: MAX_PARTS,
      fields: MAX_PARTS,
      fieldSize: 1024,
      headerPairs: 32,
    },
    throwFileSizeLimit: false,
  });
}

/** The form's `file` field: its stream, its declared type and its name. */
export async function fileField(
  request: FastifyRequest,
): Promise<{ contentType: string; filename: string | null; stream: NodeJS.ReadableStream }> {
  let parts: AsyncIterator<{ type: string; fieldname: string }>;
  try {
    parts = request.parts()[Symbol.asyncIterator]() as AsyncIterator<{ type: string; fieldname: string }>;
  } catch {
    throw new HttpProblem("invalid_body", "The multipart/form-data body could not be read.");
  }
  for (;;) {
    let next: IteratorResult<{ type: string; fieldname: string }>;
    try {
      next = await parts.next();
    } catch {
      throw new HttpProblem("invalid_body", "The multipart/form-data body could not be read.");
    }
    if (next.done) throw new HttpProblem("invalid_body", "The multipart/form-data body has no `file` field.");
    const part = next.value as {
      type: string;
      fieldname: string;
      file?: NodeJS.ReadableStream;
      mimetype?: string;
      filename?: string;
    };
    if (part.type !== "file" || !part.file) continue;
    if (part.fieldname !== "file") {
      part.file.resume();
      continue;
    }
    const contentType = (part.mimetype ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    return { contentType, filename: part.filename ? part.filename.slice(0, 255) : null, stream: part.file };
  }
}
