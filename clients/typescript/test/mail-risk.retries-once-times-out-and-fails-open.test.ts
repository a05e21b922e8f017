/**
 * The client's rules of time and failure (docs/clients.md), against a scripted loopback
 * HTTP server (the answers a real service gives rarely: 503, 429, a proxy's 502): what
 * it sends, the one retry after `Retry-After` when the wait fits the time-out, the
 * deadline of a whole call, problems as `MailRiskError`, and `failOpen`; what `check()`
 * resolves to: the record itself with `outcome`, so `result.block` reads directly. Lower
 * bounds on time hold as written; upper bounds are a quiet machine's, stretched by the
 * machine's pace read as each call starts (harness/machine-pace.ts).
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import { type Pace, startPace } from "../../../harness/machine-pace.js";
import { sampleRecord } from "../../../harness/sample-record.js";
import { type Checked, MailRisk, MailRiskError, type Unknown } from "../src/index.js";

type Answer = (response: ServerResponse) => void;

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

let server: Server;
let base: string;
let answers: Answer[] = [];
let seen: Seen[] = [];

const record = sampleRecord({ domain: "example.com" });
const ok: Answer = (response) =>
  response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(record));
const problem =
  (status: number, code: string, headers: Record<string, string> = {}): Answer =>
  (response) =>
    response
      .writeHead(status, { "content-type": "application/problem+json", ...headers })
      .end(JSON.stringify({ type: "about:blank", title: "T", status, detail: `${code} detail`, code }));
const hang: Answer = () => {};

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      seen.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      (answers.shift() ?? problem(500, "internal_error"))(response);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix`;
});

beforeEach(() => {
  answers = [];
  seen = [];
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** What `work` resolves to, how long it took, and the machine's pace read as it started. */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; pace: Pace }> {
  const pace = startPace();
  const started = performance.now();
  return { value: await work(), ms: performance.now() - started, pace };
}

async function rejection(work: Promise<unknown>): Promise<MailRiskError> {
  const error = await work.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(MailRiskError);
  return error as MailRiskError;
}

describe("what the client sends", () => {
  it("posts the email or the domain as JSON with the Bearer key, under the base URL's path", async () => {
    answers = [ok, ok, ok];
    const client = new MailRisk({ baseUrl: base, key: "mr_secret" });
    expect(await client.check("someone@example.com")).toEqual({ ...record, outcome: "checked" });
    await client.check("example.com", { explain: true });
    await new MailRisk({ baseUrl: `${base}/`, key: "mr_secret" }).check("example.com");
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual([
      "POST /prefix/v2/",
      "POST /prefix/v2/",
      "POST /prefix/v2/",
    ]);
    expect(seen.map(({ body }) => JSON.parse(body))).toEqual([
      { email: "someone@example.com" },
      { domain: "example.com", explain: true },
      { domain: "example.com" },
    ]);
    expect(seen[0]?.headers).toMatchObject({
      authorization: "Bearer mr_secret",
      accept: "application/json",
      "content-type": "application/json",
    });
  });
});

describe("what check() resolves to", () => {
  it("is the record itself with outcome checked, and with failOpen unknown has none of its fields", async () => {
    const blocked = sampleRecord({ domain: "mailinator.com", block: true, risk: 95 });
    answers = [
      (response) =>
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(blocked)),
      ok,
      problem(500, "internal_error"),
    ];
    const strict = new MailRisk({ baseUrl: base, key: "k" });
    const result = await strict.check("someone@mailinator.com");
    expectTypeOf(result).toEqualTypeOf<Checked>();
    expect(result).toEqual({ ...blocked, outcome: "checked" });
    expect(result.block).toBe(true);
    expect(result.risk).toBe(95);

    const open = new MailRisk({ baseUrl: base, key: "k", failOpen: true });
    const checked = await open.check("example.com");
    expectTypeOf(checked).toEqualTypeOf<Checked | Unknown>();
    expectTypeOf(checked.block).toEqualTypeOf<boolean | undefined>();
    expect(checked).toMatchObject({ outcome: "checked", domain: "example.com", block: record.block });
    const unknown = await open.check("example.com");
    expect(Object.keys(unknown)).toEqual(["outcome", "error"]);
    expect(unknown.block).toBeUndefined();
    expect(unknown.outcome === "unknown" && unknown.error).toBeInstanceOf(MailRiskError);
  });
});

describe("retries", () => {
  it("retries a 503 once after its Retry-After when the wait fits the time-out", async () => {
    answers = [problem(503, "database_unavailable", { "retry-after": "1" }), ok];
    const client = new MailRisk({ baseUrl: base, key: "k", timeoutMs: 3000 });
    const { value, ms } = await timed(() => client.check("example.com"));
    expect(value).toEqual({ ...record, outcome: "checked" });
    expect(seen).toHaveLength(2);
    expect(ms).toBeGreaterThanOrEqual(950);
  });

  it("retries a 429 once, and only once", async () => {
    answers = [problem(429, "too_many_requests", { "retry-after": "1" }), problem(429, "quota_exceeded")];
    const client = new MailRisk({ baseUrl: base, key: "k", timeoutMs: 3000 });
    const error = await rejection(client.check("example.com"));
    expect(error).toMatchObject({ code: "quota_exceeded", status: 429, detail: "quota_exceeded detail" });
    expect(seen).toHaveLength(2);
  });

  it("does not wait when Retry-After is missing or longer than the time-out leaves", async () => {
    answers = [problem(503, "database_unavailable", { "retry-after": "5" }), problem(429, "quota_exceeded")];
    const client = new MailRisk({ baseUrl: base, key: "k", timeoutMs: 3000 });
    const { value: error, ms, pace } = await timed(() => rejection(client.check("example.com")));
    expect(error).toMatchObject({ code: "database_unavailable", status: 503, retryAfterSeconds: 5 });
    expect(ms).toBeLessThan(pace.bound(500));
    expect((await rejection(client.usage())).code).toBe("quota_exceeded");
    expect(seen).toHaveLength(2);
  });

  it("retries nothing else: a 500 or a 400 is answered at once", async () => {
    answers = [problem(500, "internal_error", { "retry-after": "1" }), problem(400, "invalid_email")];
    const client = new MailRisk({ baseUrl: base, key: "k" });
    expect((await rejection(client.check("example.com"))).code).toBe("internal_error");
    expect((await rejection(client.check("x@"))).code).toBe("invalid_email");
    expect(seen).toHaveLength(2);
  });
});

describe("time-out and fail-open", () => {
  it("gives up at the time-out with code timeout, or with failOpen answers unknown", async () => {
    answers = [hang, hang];
    const strict = new MailRisk({ baseUrl: base, key: "k", timeoutMs: 300 });
    const { value: error, ms, pace } = await timed(() => rejection(strict.check("example.com")));
    expect(error).toMatchObject({ code: "timeout", status: 0 });
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(pace.bound(800));

    const open = new MailRisk({ baseUrl: base, key: "k", timeoutMs: 300, failOpen: true });
    const { value, ms: openMs, pace: openPace } = await timed(() => open.check("example.com"));
    expect(value.outcome).toBe("unknown");
    if (value.outcome === "unknown") expect(value.error.code).toBe("timeout");
    expect(openMs).toBeLessThan(openPace.bound(800));
  });

  it("counts the retry's wait inside the one deadline", async () => {
    answers = [problem(503, "database_unavailable", { "retry-after": "1" }), hang];
    const client = new MailRisk({ baseUrl: base, key: "k", timeoutMs: 1500, failOpen: true });
    const { value, ms, pace } = await timed(() => client.check("example.com"));
    expect(value.outcome).toBe("unknown");
    expect(ms).toBeLessThan(pace.bound(2000));
  });

  it("with failOpen answers a 5xx, even one with no problem body, as unknown, and still throws a 4xx", async () => {
    answers = [
      (response) => response.writeHead(502, { "content-type": "text/html" }).end("<h1>Bad Gateway</h1>"),
      problem(401, "invalid_api_key"),
    ];
    const client = new MailRisk({ baseUrl: base, key: "k", failOpen: true });
    const unknown = await client.check("example.com");
    expect(unknown.outcome === "unknown" && unknown.error).toMatchObject({
      code: "unexpected_response",
      status: 502,
    });
    expect((await rejection(client.check("example.com"))).code).toBe("invalid_api_key");
  });

  it("answers a service that cannot be reached with code unreachable, or unknown with failOpen", async () => {
    const gone = "http://127.0.0.1:9";
    expect((await rejection(new MailRisk({ baseUrl: gone, key: "k" }).check("a.com"))).code).toBe(
      "unreachable",
    );
    const open = await new MailRisk({ baseUrl: gone, key: "k", failOpen: true }).check("a.com");
    expect(open.outcome === "unknown" && open.error.code).toBe("unreachable");
  });
});
