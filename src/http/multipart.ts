/**
 * `multipart/form-data` bodies of the direct route: collected by Fastify like any other
 * body (so the 16 KiB limit holds exactly, streamed or not), parsed by the platform's
 * own form parser (undici's `Response#formData`), fields only. Only the input fields
 * are kept; a repeated field becomes an array, which the schema then refuses.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { HttpProblem } from "./http-problem.js";

const INPUT_FIELDS = new Set(["email", "domain"]);

/** A collected multipart body as the platform parses it; `invalid_body` when it cannot. */
export async function readFormData(contentType: string, body: Buffer): Promise<FormData> {
  try {
    return await new Response(body, { headers: { "content-type": contentType } }).formData();
  } catch {
    throw new HttpProblem("invalid_body", "The multipart/form-data body could not be read.");
  }
}

export async function parseMultipartFields(
  contentType: string,
  body: Buffer,
): Promise<Record<string, unknown>> {
  const form = await readFormData(contentType, body);
  const fields: Record<string, unknown> = {};
  for (const [name, value] of form) {
    if (typeof value !== "string") {
      throw new HttpProblem("invalid_body", "The form may carry only fields, not files.");
    }
    if (!INPUT_FIELDS.has(name)) continue;
    const previous = fields[name];
    fields[name] = previous === undefined ? value : ([] as unknown[]).concat(previous, value);
  }
  return fields;
}

export function addMultipartParser(app: FastifyInstance): void {
  app.addContentTypeParser(
    "multipart/form-data",
    { parseAs: "buffer" },
    async (request: FastifyRequest, body: Buffer) =>
      parseMultipartFields(String(request.headers["content-type"]), body),
  );
}
