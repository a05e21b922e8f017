/**
 * The same-work bare route of the HTTP benchmarks, run in a process of its own
 * (`node --import tsx bench/bare-route.ts ANSWERS_FILE`): a bare Fastify app that takes
 * the requests the checking routes take and sends the same answer bytes, with no key,
 * quota or checking. `POST /v2/` parses its form (or JSON) body and reads the query;
 * `GET /` reads the query; each needs its key header present (401 without), as the
 * checking routes do before anything else. The answers are mailrisk's own, read from
 * ANSWERS_FILE (`{"full": …, "simple": …}`), and are sent as a handler's return value
 * (Fastify serialises them), as a bare route sends an object.
 */
import { readFileSync } from "node:fs";
import formbody from "@fastify/formbody";
import Fastify from "fastify";

const file = process.argv[2];
if (!file) throw new Error("usage: bare-route.ts ANSWERS_FILE");
const answers = JSON.parse(readFileSync(file, "utf8")) as { full: string; simple: string };
const full = JSON.parse(answers.full) as object;
const simple = JSON.parse(answers.simple) as object;

interface Fields {
  email?: string;
  domain?: string;
}

const app = Fastify();
await app.register(formbody);
app.post<{ Body: Fields; Querystring: Fields }>("/v2/", async (request, reply) => {
  if (request.headers.authorization === undefined) return reply.code(401).send();
  const input = request.body?.email ?? request.body?.domain ?? request.query.domain;
  if (input === undefined) return reply.code(400).send();
  return full;
});
app.get<{ Querystring: Fields }>("/", async (request, reply) => {
  if (request.headers["x-gateway-key"] === undefined) return reply.code(401).send();
  const input = request.query.email ?? request.query.domain;
  if (input === undefined) return reply.code(400).send();
  return simple;
});
const url = await app.listen({ host: process.env.HOST ?? "127.0.0.1", port: 0 });
process.stdout.write(`listening ${url}\n`);
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => void app.close().then(() => process.exit(0)));
}
