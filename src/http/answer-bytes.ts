/**
 * The answer bytes of the checking routes, prepared once per decided answer: the checker
 * keeps a domain's decided record (the same object, answer after answer) while the
 * sources that decided it stand, so its JSON text in each shape (the full record of
 * `POST /v2/`, the simple record of `GET /`) is written on its first answer and kept
 * beside the record, weakly: it goes when the record goes. A cached check then costs no
 * serialisation and no shaping. The text is what the route's response schema writes;
 * Fastify sends a JSON string as it is.
 */
import type { TSchema } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import type { CheckRecord } from "../core/record.js";

const JSON_TYPE = "application/json; charset=utf-8";

/** Sends a record in one shape (`schema`, built from the record by `shape`) from its prepared text. */
export function preparedAnswers(
  schema: TSchema,
  shape: (record: CheckRecord) => object = (record) => record,
): (reply: FastifyReply, record: CheckRecord) => FastifyReply {
  const written = new WeakMap<CheckRecord, string>();
  // Compiled once per route and schema, and kept, by Fastify.
  let serialise: ((data: unknown) => string) | undefined;
  return (reply, record) => {
    let text = written.get(record);
    if (text === undefined) {
      serialise ??= reply.compileSerializationSchema(schema as never) as (data: unknown) => string;
      text = serialise(shape(record));
      written.set(record, text);
    }
    return reply.type(JSON_TYPE).send(text);
  };
}
