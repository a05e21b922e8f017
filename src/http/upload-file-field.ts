/**
 * `multipart/form-data` through `@fastify/multipart`, the one multipart path: the `file`
 * field of an upload (`POST /v2/jobs`, the console's jobs page), streamed as it arrives
 * (the body is never collected, the parts before the file are skipped), and a small form
 * read whole within its limits (the account list's import, `readSmallForm`). The route's
 * scope registers the plugin with `uploadMultipart()`; nothing is read before the handler
 * asks, after its scope's CSRF and access checks in hooks (or, for a form whose token is
 * a field, before anything it carries is stored).
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

/** A form read whole: its fields (a file's text among them), or that a file passed its limit. */
export type SmallForm = { fields: Record<string, string> } | { fileTooLarge: true };

/**
 * Every field of a small form, a file's text included, read within the limits of
 * `uploadMultipart(scope, maxFileBytes)`: a file over `maxFileBytes` stops the reading
 * (`fileTooLarge`), holding at most that many bytes. A repeated field keeps its last
 * value. `invalid_body` when the body cannot be read as multipart.
 */
export async function readSmallForm(request: FastifyRequest, maxFileBytes: number): Promise<SmallForm> {
  const fields: Record<string, string> = {};
  try {
    for await (const part of request.parts()) {
      if (part.type === "field") {
        fields[part.fieldname] = String(part.value);
        continue;
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      for await (const chunk of part.file as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes <= maxFileBytes) chunks.push(chunk);
      }
      if (bytes > maxFileBytes || part.file.truncated) return { fileTooLarge: true };
      fields[part.fieldname] = Buffer.concat(chunks).toString("utf8");
    }
  } catch (error) {
    if (error instanceof HttpProblem) throw error;
    throw new HttpProblem("invalid_body", "The multipart/form-data body could not be read.");
  }
  return { fields };
}
