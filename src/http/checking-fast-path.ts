/**
 * The fast path of the cached checks (docs/http.md "The fast path"): the server's
 * `request` listener in front of Fastify answers the commonest request of the service —
 * a cached check with a known secret key whose quota has room — from prepared bytes,
 * without Fastify's routing, hooks, body parsers and reply. It answers only what the
 * Fastify routes would answer 200, byte for byte the same status, headers and body, and
 * hands everything else to Fastify unchanged, before anything was counted:
 *
 * - `POST /v2/` (or `/v2`) with `Authorization: Bearer`, a form or JSON body of at most
 *   BODY_BYTES with one field, `domain` or `email`; `GET /?domain=` or `?email=` with
 *   `X-Gateway-Key`, one field; a field's text plain (letters, digits, `.`, `-`, `_`, `@`
 *   or `%40`), so that it reads as Fastify's parsers read it;
 * - no `Origin` (CORS and publishable keys stay with Fastify), no publishable key, no
 *   `explain`, no forwarding headers while their warning may be due, not while closing,
 *   not the request the sampled request log is due to log;
 * - the input parses, the key is live and known, the checker answers from memory
 *   (`Checker.answerFromMemory`), and the route has written that record's text already.
 *
 * The key's secret is hashed once, for its look-up and its count; a key the usage
 * repository does not remember (or whose account is suspended) is Fastify's, which reads
 * it. Then the request is counted once (the same `authorize` as the access hook); a
 * refused count counted nothing, so it too goes to Fastify, which counts again and
 * answers 429 or 401, as it does when the count fails (the store unreachable). What the Fastify path does on its way is done here too: the metrics, the
 * traffic counts, the requests in progress, the sampled request log's count. A body
 * read here and handed to Fastify is replayed to its parsers (`replayReadBody`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { preParsingHookHandler } from "fastify";
import { LRUCache } from "lru-cache";
import type { ParsedInput } from "../core/input.js";
import { hashedSecret, isPublishableSecret } from "../core/key-formats.js";
import type { MemoryAnswer } from "../service/checking/checker.js";
import type { RequestsInProgress } from "../service/jobs/requests-in-progress.js";
import type { AuthenticatedKey, QuotaState, WaitingCount } from "../store/index.js";
import { RateLimitTexts } from "./access.js";
import type { SampledAccessLog } from "./access-log.js";
import { type AnswerText, JSON_TYPE, type PreparedAnswers } from "./answer-bytes.js";
import type { CheckingDeps } from "./checking-deps.js";
import { type CredentialScheme, readCredentials } from "./credentials.js";
import type { ForwardedHeadersWarning } from "./forwarded-headers-warning.js";
import { namesPublishableKey } from "./publishable-keys.js";
import { type CheckInput, selectInput } from "./run-check.js";

/** The largest body the fast path reads; a larger one goes to Fastify unread. */
export const BODY_BYTES = 1024;
/**
 * Inputs kept parsed, per grammar: a request's text and what it parses to. Only a text
 * that parses is kept: one plain field of at most MAX_INPUT_LENGTH characters (a query's
 * or form body's), or a JSON body of at most BODY_BYTES.
 */
const PARSED_INPUTS = 10_000;

/** A field's plain text: read alike by every parser (only `%40`, the `@`, is decoded). */
const PLAIN = /^(?:[A-Za-z0-9._@-]|%40)+$/;
const FORM_FIELD = /^(domain|email)=([^&]*)$/;
/** A bearer token: visible ASCII, no space. */
const TOKEN = /^[\x21-\x7e]+$/;
const FORM_TYPE = "application/x-www-form-urlencoded";
const JSON_BODY_TYPE = "application/json";

/** A body the fast path read before handing its request to Fastify. */
const READ_BODY = Symbol("mailrisk.readBody");
type WithBody = IncomingMessage & { [READ_BODY]?: Buffer };

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export interface FastPathDeps
  extends Pick<
    CheckingDeps,
    "usage" | "checker" | "metrics" | "traffic" | "clock" | "answers" | "testNames"
  > {
  requests?: RequestsInProgress | undefined;
  /** Whether the server is closing (Fastify answers 503, or closes the connection after the answer). */
  closing(): boolean;
  accessLog?: SampledAccessLog | undefined;
  proxyWarning?: ForwardedHeadersWarning | undefined;
}

interface FastRoute {
  method: "GET" | "POST";
  /** The route's path, as the metrics name it. */
  url: string;
  scheme: CredentialScheme;
  answers: PreparedAnswers;
  /** `GET /` serves browsers too: its answers vary on Accept. */
  varyAccept: boolean;
}

/**
 * The key of `Authorization: Bearer KEY` as the fast path takes it: one token of visible
 * characters after `Bearer ` and a space, as it is. Any other spelling, and a key sent
 * base64-encoded, is Fastify's (`readCredentials`, which tries the decoded form too); the
 * raw token of an encoded key is no known key, so the fast path would hand it over anyway.
 */
function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined || !header.startsWith("Bearer ")) return undefined;
  const token = header.slice(7);
  return TOKEN.test(token) ? token : undefined;
}

/** The field of a form or query text of one plain `domain` or `email`; undefined for anything else. */
function plainField(text: string): CheckInput | undefined {
  const field = FORM_FIELD.exec(text);
  const value = field?.[2];
  if (!value || !PLAIN.test(value)) return undefined;
  const plain = value.includes("%") ? value.replaceAll("%40", "@") : value;
  return field[1] === "email" ? { email: plain } : { domain: plain };
}

/** The field of a JSON body of one string `domain` or `email`; undefined for anything else. */
function jsonField(text: string): CheckInput | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const names = Object.keys(body);
  const [name] = names;
  if (names.length !== 1 || (name !== "domain" && name !== "email")) return undefined;
  const value = (body as Record<string, unknown>)[name];
  if (typeof value !== "string") return undefined;
  return name === "email" ? { email: value } : { domain: value };
}

/** The declared length of a small body the fast path may read (no chunked body, none over BODY_BYTES). */
function smallBodyLength(request: IncomingMessage): number | undefined {
  const { headers } = request;
  if (headers["transfer-encoding"] !== undefined) return undefined;
  const declared = headers["content-length"];
  if (declared === undefined || !/^[1-9]\d{0,3}$/.test(declared)) return undefined;
  const length = Number(declared);
  return length <= BODY_BYTES ? length : undefined;
}

/** Reads a body of `length` bytes whole; `done` is not called when the request fails or ends short (Fastify's timeouts and the socket's close apply). */
function readBody(request: IncomingMessage, length: number, done: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let received = 0;
  request.on("data", (chunk: Buffer) => {
    chunks.push(chunk);
    received += chunk.length;
  });
  request.once("end", () => {
    if (received === length) done(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
  });
}

/**
 * The server's `request` listener: the fast path, and Fastify's own handler (`fastify`)
 * for everything it does not answer.
 */
export function checkingFastPath(deps: FastPathDeps, fastify: Handler): Handler {
  const texts = new RateLimitTexts();
  const direct: FastRoute = {
    method: "POST",
    url: "/v2/",
    scheme: "bearer",
    answers: deps.answers.direct,
    varyAccept: false,
  };
  const gateway: FastRoute = {
    method: "GET",
    url: "/",
    scheme: "gateway",
    answers: deps.answers.gateway,
    varyAccept: true,
  };

  const toFastify = (request: WithBody, response: ServerResponse, body?: Buffer) => {
    if (body !== undefined) request[READ_BODY] = body;
    fastify(request, response);
  };

  /** Sends the prepared answer with the headers the Fastify route would write, in its order. */
  const send = (
    route: FastRoute,
    response: ServerResponse,
    answer: AnswerText,
    remaining: number | null,
    quota: Parameters<RateLimitTexts["limit"]>[0],
    now: Date,
  ) => {
    const headers: Record<string, string> = {};
    if (route.varyAccept) headers.vary = "Accept";
    headers["content-type"] = JSON_TYPE;
    if (deps.closing()) headers.connection = "close";
    headers["x-ratelimit-requests-remaining"] = texts.remaining(remaining);
    headers["x-ratelimit-requests-limit"] = texts.limit(quota);
    headers["x-ratelimit-requests-reset"] = texts.reset(quota, now);
    headers["content-length"] = answer.length;
    response.writeHead(200, headers);
    response.end(answer.latin1, "latin1");
  };

  /**
   * Inputs that parsed, by the text they were read from (a cached check's text recurs):
   * a query's or form body's (one grammar, `plainField`), and a JSON body's.
   */
  const parsedTexts = new LRUCache<string, ParsedInput>({ max: PARSED_INPUTS });
  const parsedJson = new LRUCache<string, ParsedInput>({ max: PARSED_INPUTS });
  const parse = (
    text: string,
    parsed: LRUCache<string, ParsedInput>,
    read: (text: string) => CheckInput | undefined,
  ): ParsedInput | undefined => {
    let input = parsed.get(text);
    if (input === undefined) {
      const fields = read(text);
      const result = fields && selectInput(fields, deps);
      if (!result?.ok) return undefined;
      input = result.input;
      parsed.set(text, input);
    }
    return input;
  };

  /**
   * A request answered from memory once its count is in: counted with the other requests
   * of its turn (`countRemembered`), then sent, or handed to Fastify when the count was
   * refused (Fastify counts again, and answers the 429 or 401 itself) or failed (the
   * store unreachable). One object a request, told its count: no promise on the way.
   */
  class CountedAnswer implements WaitingCount {
    readonly units = 1;

    constructor(
      readonly key: AuthenticatedKey,
      readonly now: Date,
      private readonly route: FastRoute,
      private readonly request: WithBody,
      private readonly response: ServerResponse,
      private readonly memory: MemoryAnswer,
      private readonly prepared: AnswerText,
      private readonly seconds: number,
      private readonly body: Buffer | undefined,
    ) {}

    counted(quota: QuotaState): void {
      if (!quota.allowed) {
        this.failed();
        return;
      }
      const { memory, route } = this;
      memory.answered();
      deps.metrics.observeCheck(memory.result, this.seconds);
      deps.traffic.count("api", memory.result.record);
      send(route, this.response, this.prepared, quota.remaining, quota, this.now);
      deps.requests?.ended();
      deps.metrics.countRequest(route.method, route.url, 200);
      deps.accessLog?.answeredWithoutLine();
    }

    failed(): void {
      deps.requests?.ended();
      toFastify(this.request, this.response, this.body);
    }
  }

  /**
   * Answers from memory when the key is remembered, the checker answers from memory and
   * the route has the record's text; else hands the request to Fastify (which reads a
   * key it does not remember, and remembers it for the next request).
   */
  const answer = (
    route: FastRoute,
    request: WithBody,
    response: ServerResponse,
    input: ParsedInput,
    secret: string,
    body?: Buffer,
  ) => {
    const now = deps.clock();
    const key = deps.usage.rememberedKey(hashedSecret(secret), now);
    if (!key) return toFastify(request, response, body);
    const started = performance.now();
    const memory = deps.checker.answerFromMemory?.(input, {
      budget: "api",
      client: key.id,
      account: key.account?.id,
    });
    const prepared = memory && route.answers.prepared(memory.result.record);
    if (!memory || !prepared) return toFastify(request, response, body);
    const seconds = (performance.now() - started) / 1000;
    deps.requests?.started();
    deps.usage.countRemembered(
      new CountedAnswer(key, now, route, request, response, memory, prepared, seconds, body),
    );
  };

  /** The route a request may take the fast path on, and its key; undefined for anything else. */
  const routeOf = (request: IncomingMessage): FastRoute | undefined => {
    const { method, url = "", headers } = request;
    if (headers.origin !== undefined || deps.closing() || deps.proxyWarning?.mayWarn(headers))
      return undefined;
    let route: FastRoute | undefined;
    if (method === "POST" && (url === "/v2/" || url === "/v2")) route = direct;
    else if (method === "GET" && url.startsWith("/?")) route = gateway;
    // Last: a request that claims the request log's line is Fastify's.
    return route && !deps.accessLog?.claimLine() ? route : undefined;
  };

  const secretOf = (route: FastRoute, request: IncomingMessage): string | undefined => {
    if (route.scheme === "bearer") {
      const token = bearerToken(request.headers.authorization);
      return token === undefined || isPublishableSecret(token) ? undefined : token;
    }
    const credentials = readCredentials(route.scheme, request.headers);
    if (credentials.kind !== "present" || namesPublishableKey(credentials.candidates)) return undefined;
    return credentials.candidates[0];
  };

  return (request, response) => {
    const route = routeOf(request);
    const secret = route && secretOf(route, request);
    if (!route || secret === undefined) return fastify(request, response);
    if (route === gateway) {
      const input = parse((request.url ?? "").slice(2), parsedTexts, plainField);
      if (!input || request.headers["content-length"] !== undefined || request.headers["transfer-encoding"])
        return fastify(request, response);
      answer(route, request, response, input, secret);
      return;
    }
    const type = request.headers["content-type"];
    const length = smallBodyLength(request);
    if ((type !== FORM_TYPE && type !== JSON_BODY_TYPE) || length === undefined)
      return fastify(request, response);
    readBody(request, length, (body) => {
      const text = body.toString("utf8");
      const input =
        type === FORM_TYPE ? parse(text, parsedTexts, plainField) : parse(text, parsedJson, jsonField);
      if (!input) return toFastify(request, response, body);
      answer(route, request, response, input, secret, body);
    });
  };
}

/**
 * The `preParsing` hook of the checking routes: a body the fast path read before handing
 * its request over is given to Fastify's parsers as if it arrived now.
 */
export const replayReadBody: preParsingHookHandler = (request, _reply, payload, done) => {
  const body = (request.raw as WithBody)[READ_BODY];
  done(null, body === undefined ? payload : Readable.from([body]));
};
