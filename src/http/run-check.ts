/**
 * The part both checking routes share once access is granted: pick the input field,
 * parse it (400 with the parser's own code) and run the check. A failure is not
 * classified here: the error handler maps it by type (503 for an unreachable database,
 * else 500).
 */
import type { TSchema } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type EvidenceItem, EvidenceSchema } from "../core/evidence.js";
import { type ParsedInput, type ParseResult, parseDomain, parseEmail } from "../core/input.js";
import type { NameRules } from "../core/reserved-names.js";
import type { Checker, CheckResult, Lane } from "../service/checking/checker.js";
import type { TrafficCounter } from "../service/checking/traffic-counter.js";
import { HttpProblem } from "./http-problem.js";
import type { HttpMetrics } from "./metrics-registry.js";

export interface CheckInput {
  email?: string | undefined;
  domain?: string | undefined;
  /** Append the evidence behind the verdict (docs/api.md "Evidence (`explain=true`)"). */
  explain?: boolean | "true" | "false" | undefined;
}

export interface RunCheckDeps extends NameRules {
  checker: Checker;
  metrics: HttpMetrics;
  /** This instance's traffic counts (docs/console.md "Traffic"): one `count` per check answered, by surface. */
  traffic: Pick<TrafficCounter, "count">;
}

function given(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

/**
 * An unencoded `+` in a query string or form body arrives as a space (`?email=a+b@x.com`
 * reads `a b@x.com`): a refused address with a space in its local part says how to send it.
 */
export function withPlusHint(email: string, parsed: ParseResult): ParseResult {
  if (parsed.ok || parsed.problem.code !== "invalid_email") return parsed;
  const at = email.lastIndexOf("@");
  if (at < 0 || !email.slice(0, at).trim().includes(" ")) return parsed;
  return {
    ok: false,
    problem: {
      code: "invalid_email",
      detail:
        "The local part holds a space. A + in a query string or form body arrives as a space: encode it as %2B (a%2Bb@example.com).",
    },
  };
}

/** docs/api.md "Inputs": either field is accepted; when both are sent, a non-empty `email` wins. */
export function selectInput(fields: CheckInput, rules: NameRules): ParseResult {
  if (given(fields.email)) return withPlusHint(fields.email, parseEmail(fields.email, rules));
  if (given(fields.domain)) return parseDomain(fields.domain, rules);
  return {
    ok: false,
    problem: { code: "missing_input", detail: "Send an email address in `email` or a domain in `domain`." },
  };
}

export async function runCheck(
  deps: RunCheckDeps,
  request: FastifyRequest,
  fields: CheckInput,
): Promise<CheckResult> {
  const parsed = selectInput(fields, deps);
  if (!parsed.ok) throw new HttpProblem(parsed.problem.code, parsed.problem.detail);
  const result = await checkParsed(deps, request, parsed.input, apiLane(request));
  deps.traffic.count("api", result.record);
  return result;
}

/** The API's look-up budget, the key's share of it (the access hook found the key), and the key's account's own list. */
export function apiLane(request: FastifyRequest): Lane {
  const key = request.caller?.key;
  return { budget: "api", client: key?.id ?? "", account: key?.account?.id };
}

/** Checks an input that already parsed in the caller's lane: the domain goes to the request log, the timing to the metrics. */
export async function checkParsed(
  deps: RunCheckDeps,
  request: FastifyRequest,
  input: ParsedInput,
  lane: Lane,
): Promise<CheckResult> {
  request.checkedDomain = input.domain;
  const started = performance.now();
  const result = await deps.checker.check(input, lane);
  // The one place on the answer path where an answered check is noted: the metrics, and
  // any other per-check counter beside them (a plain in-memory update: nothing awaited).
  deps.metrics.observeCheck(result, (performance.now() - started) / 1000);
  return result;
}

const NO_EVIDENCE: readonly EvidenceItem[] = Object.freeze([]);

/**
 * The writer of `explain=true` answers of one route (docs/api.md "Evidence (`explain=true`)"): the record by its
 * shape's own serialiser, then `evidence`, serialised by EvidenceSchema's once per
 * decided answer and kept beside it, so that a cached explained answer costs about what
 * a plain one does. The text is what the route's response schema says (the record, then
 * `evidence`); Fastify sends a JSON string as it is.
 */
export function explainedAnswers(): (
  reply: FastifyReply,
  shape: TSchema,
  record: object,
  result: Pick<CheckResult, "explain">,
) => string {
  const written = new WeakMap<readonly EvidenceItem[], string>();
  // Compiled once per route and schema, and kept, by Fastify.
  const serialiser = (reply: FastifyReply, schema: TSchema) =>
    reply.compileSerializationSchema(schema as never) as (data: unknown) => string;
  return (reply, shape, record, result) => {
    const items = result.explain?.() ?? NO_EVIDENCE;
    let evidence = written.get(items);
    if (evidence === undefined) {
      evidence = serialiser(reply, EvidenceSchema)(items);
      written.set(items, evidence);
    }
    const text = serialiser(reply, shape)(record);
    reply.type("application/json; charset=utf-8");
    return `${text.slice(0, -1)},"evidence":${evidence}}`;
  };
}
