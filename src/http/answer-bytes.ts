/**
 * The answer bytes of the checking routes, prepared once per decided answer: the checker
 * keeps a domain's decided record (the same object, answer after answer) while the
 * sources that decided it stand, so its JSON text in each shape (the full record of
 * `POST /v2/`, the simple record of `GET /`) is written on its first answer and kept
 * beside the record, weakly: it goes when the record goes. A cached check then costs no
 * serialisation and no shaping. The text is what the route's response schema writes,
 * kept as its UTF-8 bytes, which Fastify sends as they are, and as the same bytes read
 * as Latin-1 (a character a byte), which the fast path sends: Node's `OutgoingMessage`
 * joins a Latin-1 string body to the response's head and writes both in one write of
 * one buffer, where a Buffer body is a second buffer of a `writev` and a UTF-8 string is
 * encoded again on every answer. The fast path (checking-fast-path.ts) answers only a
 * record whose text its route has already written.
 */
import type { TSchema } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import { type CheckRecord, toSimpleRecord } from "../core/record.js";
import { ExplainableRecordSchema, ExplainableSimpleRecordSchema } from "./schemas.js";

export const JSON_TYPE = "application/json; charset=utf-8";

/** A record's answer text in one shape, as UTF-8 bytes, and their length as the `content-length` header says it. */
export interface AnswerText {
  bytes: Buffer;
  /** The same bytes as a Latin-1 string, a character a byte: written with `latin1`, they are the UTF-8 bytes again. */
  latin1: string;
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
        answer = { bytes, latin1: bytes.toString("latin1"), length: String(bytes.length) };
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
