/**
 * The answer bytes of the checking routes, prepared once per decided answer: the checker
 * keeps a domain's decided record (the same object, answer after answer) while the
 * sources that decided it stand, so its JSON text in each shape (the full record of
 * `POST /v2/`, the simple record of `GET /`) is written on its first answer and kept
 * beside the record, weakly: it goes when the record goes. A cached check then costs no
 * serialisation and no shaping. The text is what the route's response schema writes,
 * kept as its UTF-8 bytes: Fastify and the fast path send a Buffer as it is, where a
 * string body would be joined to the response's head, flattened and encoded again on
 * every answer (Node's `OutgoingMessage`). The fast path (checking-fast-path.ts) answers
 * only a record whose text its route has already written.
 */
import type { TSchema } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import { type CheckRecord, toSimpleRecord } from "../core/record.js";
import { ExplainableRecordSchema, ExplainableSimpleRecordSchema } from "./schemas.js";

export const JSON_TYPE = "application/json; charset=utf-8";

/** A record's answer text in one shape, as UTF-8 bytes, and their length as the `content-length` header says it. */
export interface AnswerText {
  bytes: Buffer;
  length: string;
}

export interface PreparedAnswers {
  /** Sends the record from its prepared text (writing it on its first answer). */
  send(reply: FastifyReply, record: CheckRecord): FastifyReply;
  /** The record's text when one of its answers wrote it already. */
  prepared(record: CheckRecord): AnswerText | undefined;
}

/** The answers of one shape (`schema`, built from the record by `shape`) from their prepared text. */
export function preparedAnswers(
  schema: TSchema,
  shape: (record: CheckRecord) => object = (record) => record,
): PreparedAnswers {
  const written = new WeakMap<CheckRecord, AnswerText>();
  // Compiled once per route and schema, and kept, by Fastify.
  let serialise: ((data: unknown) => string) | undefined;
  return {
    send(reply, record) {
      let answer = written.get(record);
      if (answer === undefined) {
        serialise ??= reply.compileSerializationSchema(schema as never) as (data: unknown) => string;
        const bytes = Buffer.from(serialise(shape(record)), "utf8");
        answer = { bytes, length: String(bytes.length) };
        written.set(record, answer);
      }
      return reply.type(JSON_TYPE).send(answer.bytes);
    },
    prepared: (record) => written.get(record),
  };
}

/** The prepared answers of the two cached checking routes, shared by the routes and the fast path. */
export interface CheckingAnswers {
  /** `POST /v2/`: the full record. */
  direct: PreparedAnswers;
  /** `GET /`: the simple record. */
  gateway: PreparedAnswers;
}

export function checkingAnswers(): CheckingAnswers {
  return {
    direct: preparedAnswers(ExplainableRecordSchema),
    gateway: preparedAnswers(ExplainableSimpleRecordSchema, toSimpleRecord),
  };
}
