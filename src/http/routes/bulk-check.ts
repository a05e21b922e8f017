/**
 * `POST /v2/bulk` (docs/api.md "Checking routes"): a JSON body `{"items": [...]}` of 1 to
 * BULK_MAX_ITEMS inputs, each an email address or a domain ("Inputs"); the answer is
 * `{"results": [...]}` in input order, each the full record or the input's problem
 * object, with the input as given first. Each item costs one unit of quota, all or
 * nothing: with fewer units left than items the answer is 429 and nothing is counted.
 *
 * Order of answers: 401 (the access hook checks the key without counting) → 429
 * `too_many_concurrent_requests` / 503 `server_busy` over the bulk gate (bulk-gate.ts;
 * `preParsing`, before a byte of the body is read; not counted) → 413/415/400 for the
 * body (not counted: the cost is not known yet) → 429 quota → 200. The gate's slot is let
 * go once, when the answer is built or the response ends, whichever comes first: an
 * answer of any status, a body refused or cut off, a client gone mid-body or mid-check.
 * Checks run through `checkMany`, like the CLI's, with bounded concurrency, in the API's
 * look-up budget with the key's share (src/service/checking/lookup-budget.ts); a client gone
 * mid-check stops the taking of more. Each result is serialised as soon as it is taken,
 * so a request holds text, not records, and the gate bounds how many requests hold a
 * body or any results (docs/security.md, "Bounded bulk").
 */
import { type Static, type TSchema, Type } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { EvidenceSchema } from "../../core/evidence.js";
import { MAX_INPUT_LENGTH } from "../../core/input.js";
import { SAMPLE_RECORD } from "../../core/record-example.js";
import { type CheckOutcome, checkMany, outcomeBody } from "../../service/checking/check-many.js";
import { countUnitsOfBody } from "../access.js";
import type { BulkGate } from "../bulk-gate.js";
import type { CheckingDeps } from "../checking-deps.js";
import { HttpProblem } from "../http-problem.js";
import { bulkBodyLimit } from "../limits.js";
import { problemFor, sendProblem } from "../problem-response.js";
import { apiLane } from "../run-check.js";
import { CheckRecordSchema, checkingResponses, ExplainField, explains, ProblemSchema } from "../schemas.js";
import type { TypedApp } from "../typed-app.js";

/** Checks of one bulk request at a time; the checker's look-up budget bounds all requests together. */
const CHECKS_PER_REQUEST = 32;

const EXAMPLE_ITEMS = ["someone@gmail.com", "mailinator.com", "not a domain"];

function requestSchema(maxItems: number) {
  return Type.Object(
    {
      items: Type.Array(
        Type.String({
          description: `An email address or a domain (docs/api.md, “Inputs”), at most ${MAX_INPUT_LENGTH} characters.`,
        }),
        { minItems: 1, maxItems, description: `1 to ${maxItems} inputs; each costs one unit of quota.` },
      ),
      explain: ExplainField,
    },
    { examples: [{ items: EXAMPLE_ITEMS }] },
  );
}

type BulkBody = Static<ReturnType<typeof requestSchema>>;

const RecordResultSchema = Type.Object(
  {
    input: Type.String({ description: "The item as sent." }),
    ...CheckRecordSchema.properties,
    evidence: Type.Optional(EvidenceSchema),
  },
  {
    description: "A checked item: its input, then the full record; with `explain: true`, its evidence last.",
  },
);
const ProblemResultSchema = Type.Object(
  { input: Type.String({ description: "The item as sent." }), ...ProblemSchema.properties },
  { description: "An item that is no email address or domain: its input, then the problem (status 400)." },
);

/** The results of EXAMPLE_ITEMS: SAMPLE_RECORD gives every field, each result says how its record differs. */
const EXAMPLE_RESULTS = {
  results: [
    {
      input: "someone@gmail.com",
      ...SAMPLE_RECORD,
      domain: "gmail.com",
      base_domain: "gmail.com",
      reason: "Public free provider",
      risk: 0,
      is_public_free: true,
      is_business_provider: false,
      mx_host: "gmail-smtp-in.l.google.com",
      mx_ip: "142.250.153.26",
      mx_info: "Using MX pointer gmail-smtp-in.l.google.com from DNS with priority: 5",
      mx_hosts: ["gmail-smtp-in.l.google.com", "alt1.gmail-smtp-in.l.google.com"],
      mx_ips: ["142.250.153.26", "142.251.9.26"],
      mx_priorities: { "gmail-smtp-in.l.google.com": 5, "alt1.gmail-smtp-in.l.google.com": 10 },
      email_provider: "Gmail",
      domain_age_days: 11_000,
      domain_created_at: "1995-08-13T04:00:00+00:00",
      block_status_changed_at: "2024-09-16T00:39:22+00:00",
    },
    {
      input: "mailinator.com",
      ...SAMPLE_RECORD,
      block: true,
      domain: "mailinator.com",
      base_domain: "mailinator.com",
      text: "Disposable / temporary domain",
      reason: "Disposable",
      risk: 95,
      is_disposable: true,
      is_business_provider: false,
      mx_host: "mail.mailinator.com",
      mx_ip: "104.21.32.1",
      mx_info: "Using MX pointer mail.mailinator.com from DNS with priority: 1",
      mx_hosts: ["mail.mailinator.com"],
      mx_ips: ["104.21.32.1"],
      mx_priorities: { "mail.mailinator.com": 1 },
      disposable_provider: "mailinator.com",
      domain_age_days: null,
      domain_created_at: null,
      block_status_changed_at: "2024-09-16T00:39:22+00:00",
    },
    {
      input: "not a domain",
      type: "about:blank",
      title: "Bad Request",
      status: 400,
      detail: '"not a domain" contains characters a domain cannot have.',
      code: "invalid_domain",
    },
  ],
};

const ResultsSchema = Type.Object({
  results: Type.Array(Type.Union([RecordResultSchema, ProblemResultSchema]), {
    description: "One result per item, in the order of `items`.",
  }),
});

function responses(maxItems: number) {
  const base = checkingResponses(ResultsSchema, { readsBody: true, challenges: true });
  return {
    ...base,
    200: {
      ...base[200],
      description: "One result per item, in input order; every item was counted.",
      content: { "application/json": { schema: ResultsSchema, example: EXAMPLE_RESULTS } },
    },
    400: {
      ...base[400],
      description:
        "The body is not a JSON object with `items`, an array of 1 or more strings (invalid_body); not counted.",
    },
    413: {
      ...base[413],
      description: `More than ${maxItems} items, or a body over ${Math.round(bulkBodyLimit(maxItems) / 1000)} KB (body_too_large); not counted.`,
    },
    415: {
      ...base[415],
      description: "A body other than application/json (unsupported_media_type); not counted.",
    },
    429: {
      ...base[429],
      description:
        "Fewer units of quota left than items (quota_exceeded), or the key has BULK_CONCURRENT_PER_KEY bulk requests in progress already (too_many_concurrent_requests, with Retry-After); nothing counted. x-ratelimit-requests-remaining says how many units are left.",
    },
    503: {
      ...base[503],
      description: `${base[503].description} Also BULK_CONCURRENT_TOTAL bulk requests in progress on this instance (server_busy, with Retry-After); nothing counted.`,
    },
  };
}

function isJson(request: FastifyRequest): boolean {
  const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  return type === "application/json" || (type?.startsWith("application/") === true && type.endsWith("+json"));
}

/** The route's own wording of body problems: its limit, its shape; anything else as everywhere. */
function bodyProblem(error: unknown, maxItems: number): HttpProblem | undefined {
  const fastifyError = error as { code?: string; validation?: { keyword: string }[] } | null;
  if (fastifyError?.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
    return new HttpProblem(
      "body_too_large",
      `The request body is larger than ${Math.round(bulkBodyLimit(maxItems) / 1000)} KB; send at most ${maxItems} items.`,
    );
  }
  if (!fastifyError?.validation) return undefined;
  if (fastifyError.validation.some((issue) => issue.keyword === "maxItems")) {
    return new HttpProblem("body_too_large", `Send at most ${maxItems} items per request.`);
  }
  return new HttpProblem(
    "invalid_body",
    `Send a JSON object {"items": [...]} with 1 to ${maxItems} strings, each an email address or a domain.`,
  );
}

/** Serialises each outcome by its own result schema, the serialisers compiled once by Fastify. */
function resultWriter(reply: FastifyReply, explain: boolean): (outcome: CheckOutcome) => string {
  const compile = (schema: TSchema) =>
    reply.compileSerializationSchema(schema as never) as (data: unknown) => string;
  const record = compile(RecordResultSchema);
  const problem = compile(ProblemResultSchema);
  return (outcome) => ("problem" in outcome ? problem : record)(outcomeBody(outcome, explain));
}

/** Declared inside the checking plugin's access scope, which checks the key and adds the rate-limit headers. */
export function bulkCheckRoute(
  app: TypedApp,
  deps: CheckingDeps & { bulkMaxItems: number; gate: BulkGate },
): void {
  const maxItems = deps.bulkMaxItems;
  const countUnits = countUnitsOfBody(deps);
  /** How each admitted request lets its slot go (idempotent). */
  const leaving = new WeakMap<FastifyRequest, () => void>();
  app.route({
    method: "POST",
    url: "/v2/bulk",
    bodyLimit: bulkBodyLimit(maxItems),
    config: { credentials: "bearer", units: (request) => (request.body as BulkBody).items.length },
    schema: {
      summary: "Check many domains or email addresses at once (full records, in input order)",
      description: `Authenticates with \`Authorization: Bearer KEY\` like \`POST /v2/\`. Takes \`{"items": [...]}\`, 1 to ${maxItems} inputs (BULK_MAX_ITEMS), and \`"explain": true\` to append every record's evidence, and answers \`{"results": [...]}\` in the order of the items: for each, \`input\` (as sent) followed by the full record, or by the problem object when the item is no email address or domain. Each item costs one unit of quota, all or nothing: with fewer units left than items the answer is 429 and nothing is counted. A body that cannot be read (400, 413, 415) is not counted. A key has at most BULK_CONCURRENT_PER_KEY bulk requests in progress (429 \`too_many_concurrent_requests\`), an instance at most BULK_CONCURRENT_TOTAL (503 \`server_busy\`); both with Retry-After and not counted.`,
      tags: ["check"],
      security: [{ bearerKey: [] }],
      consumes: ["application/json"],
      body: requestSchema(maxItems),
      response: responses(maxItems),
    },
    preParsing: async (request, reply, payload) => {
      // Admitted before the body is read, so a refused request holds no body; the slot is
      // let go when the response ends in any way ('close': sent, refused, or the client gone).
      const leave = deps.gate.enter(request.caller?.key.id ?? "");
      leaving.set(request, leave);
      if (reply.raw.destroyed) leave();
      else reply.raw.once("close", leave);
      if (!isJson(request)) {
        throw new HttpProblem(
          "unsupported_media_type",
          'Send the items as application/json: {"items": [...]}.',
        );
      }
      return payload;
    },
    errorHandler: (error, request, reply) =>
      sendProblem(reply, bodyProblem(error, maxItems) ?? problemFor(error, request.log)),
    handler: async function (request, reply) {
      // Admitted in preParsing; let go as soon as the answer is built, whatever happens.
      try {
        await countUnits.call(this, request, reply);
        const { items, explain } = request.body as BulkBody;
        const write = resultWriter(reply, explains(explain));
        const results: string[] = [];
        const checked = checkMany(items, {
          checker: deps.checker,
          testNames: deps.testNames,
          concurrency: CHECKS_PER_REQUEST,
          lane: apiLane(request),
          onChecked: (result, seconds) => {
            deps.metrics.observeCheck(result, seconds);
            deps.traffic.count("bulk", result.record);
          },
        });
        for await (const { outcome } of checked) {
          // The client is gone (its slot let go on 'close'): start no more checks, answer nobody.
          if (reply.raw.destroyed) return undefined;
          results.push(write(outcome));
        }
        reply.type("application/json; charset=utf-8");
        return `{"results":[${results.join(",")}]}`;
      } finally {
        leaving.get(request)?.();
      }
    },
  });
}
