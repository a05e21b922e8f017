/**
 * The same-work bare route of the HTTP benchmarks, run in a process of its own
 * (`node --import tsx bench/bare-route.ts ANSWERS_FILE`): a bare Fastify app that takes
 * the requests the checking routes take and sends the same answer bytes, with no key,
 * quota or checking. `POST /v2/` parses its form (or JSON) body and reads the query;
 * `GET /` reads the query; each needs its key header present (401 without), as the
 * checking routes do before anything else. The answers are mailrisk's own, read from
 * ANSWERS_FILE (`BareAnswers`), and are sent as a handler's return value (Fastify
 * serialises them), as a bare route sends an object.
 *
 * With `cold` in the file (`npm run bench:cold`), `POST /v2/` is the same-work route of
 * an unseen domain instead: it asks the loopback DNS server the queries mailrisk's check
 * of a domain asks (`cold.queries`, the checked domain in place of `cold.domain`), with
 * `node:dns` as mailrisk does (c-ares, one Resolver), in the engine's rounds (each
 * round's queries at once), and answers mailrisk's answer for `cold.domain` with the
 * checked domain in its place.
 */

import { Resolver } from "node:dns/promises";
import { readFileSync } from "node:fs";
import formbody from "@fastify/formbody";
import Fastify from "fastify";

/** One DNS query of a check: its type and name. */
export interface ColdQuery {
  type: "mx" | "a" | "aaaa" | "ns";
  name: string;
  /** Asked once the queries of the rounds before it are answered (the MX host's addresses after the MX). */
  round: number;
}

export interface BareAnswers {
  full: string;
  simple: string;
  cold?: { domain: string; answer: string; queries: ColdQuery[]; server: string };
}

const file = process.argv[2];
if (!file) throw new Error("usage: bare-route.ts ANSWERS_FILE");
const answers = JSON.parse(readFileSync(file, "utf8")) as BareAnswers;
const full = JSON.parse(answers.full) as object;
const simple = JSON.parse(answers.simple) as object;

interface Fields {
  email?: string;
  domain?: string;
}

/** The answer of `domain` after its DNS queries, when the file has `cold`. */
function coldChecks(cold: NonNullable<BareAnswers["cold"]>): (domain: string) => Promise<string> {
  const resolver = new Resolver({ timeout: 2000, tries: 3 });
  resolver.setServers([cold.server]);
  const ask = { mx: "resolveMx", a: "resolve4", aaaa: "resolve6", ns: "resolveNs" } as const;
  const rounds = Math.max(...cold.queries.map((query) => query.round)) + 1;
  return async (domain) => {
    for (let round = 0; round < rounds; round++) {
      await Promise.all(
        cold.queries
          .filter((query) => query.round === round)
          .map((query) =>
            resolver[ask[query.type]](query.name.replaceAll(cold.domain, domain)).catch(() => []),
          ),
      );
    }
    return cold.answer.replaceAll(cold.domain, domain);
  };
}

const app = Fastify();
await app.register(formbody);
const coldCheck = answers.cold && coldChecks(answers.cold);
app.post<{ Body: Fields; Querystring: Fields }>("/v2/", async (request, reply) => {
  if (request.headers.authorization === undefined) return reply.code(401).send();
  const input = request.body?.email ?? request.body?.domain ?? request.query.domain;
  if (input === undefined) return reply.code(400).send();
  if (!coldCheck) return full;
  return reply.type("application/json; charset=utf-8").send(await coldCheck(input));
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
