/**
 * The cached checks' fast path (src/http/checking-fast-path.ts), over real sockets, as
 * `serve` wires it (the real checker over DNS to a loopback server, SQLite): for a matrix
 * of requests — both routes and their bodies, a key of its own, an account's key with
 * the account's list, a publishable key from its origin, quota left, 1 left, none left,
 * an unknown key, bad bodies — the answer of the fast path is byte for byte the one
 * Fastify's routes give (status line, every header in its order, body; only `Date`
 * differs), for two keys in the same state. The fast path answers what it may (no
 * Fastify hook runs) and hands the rest to Fastify; each request is counted once.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { mailZones } from "../../harness/mail-zones.js";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { SAMPLE_MS } from "../../src/http/access-log.js";
import { createMetrics, type HttpMetrics } from "../../src/http/metrics-registry.js";
import { addAccountListEntry } from "../../src/operator/account-lists.js";
import type { Checker } from "../../src/service/checking/checker.js";
import { CANARY_DOMAINS, createChecker } from "../../src/service/checking/create-checker.js";
import { TrafficCounter } from "../../src/service/checking/traffic-counter.js";
import { openStore, type Store } from "../../src/store/index.js";
import { capturedLogger } from "./helpers.js";

const DOMAIN = "goodshop.com";
const LISTED = "listed-shop.com";
const ORIGIN = "https://shop.example";

let dir: string;
let dns: DnsTestServer;
let store: Store;
let checker: ReturnType<typeof createChecker>;
let app: FastifyInstance;
let port: number;
/** Whether the checker may answer from memory: off, every request takes Fastify's routes. */
let fastPathOn = true;
/** Requests Fastify's routing saw. */
let fastifyRequests = 0;
const traffic = new TrafficCounter();
let metrics: HttpMetrics;
/** Every key and account in a test is made at this time, and the app's clock stands at NOW: equal states give equal headers. */
const CREATED = new Date(Date.now() - 60_000);
const NOW = new Date(CREATED.getTime() + 3_600_000);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mailrisk-fast-path-"));
  dns = await startDnsServer(mailZones([...CANARY_DOMAINS, DOMAIN, LISTED], "own-server"));
  store = await openStore({ dialect: "sqlite", path: join(dir, "mailrisk.db") });
  await store.migrate();
  for (const [name, quota] of [
    ["plenty", 1000],
    ["three", 3],
    ["two", 2],
  ] as const) {
    await store.plans.createPlan({ name, quota, periodDays: 30 });
  }
  const config = loadConfig({ DNS_SERVERS: dns.address, AGE_LOOKUP: "off", TEST_NAMES: "on" });
  checker = createChecker({ config, store, recordsFlips: true });
  const switchable: Checker = {
    check: (input, lane) => checker.check(input, lane),
    drain: () => checker.drain(),
    answerFromMemory: (input, lane) => (fastPathOn ? checker.answerFromMemory(input, lane) : undefined),
  };
  metrics = createMetrics(switchable);
  app = await buildApp({
    store,
    checker: switchable,
    logger: false,
    config,
    clock: () => NOW,
    traffic,
    metrics,
  });
  app.addHook("onRequest", (_request, _reply, done) => {
    fastifyRequests++;
    done();
  });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  port = Number(new URL(url).port);
});

afterAll(async () => {
  await app?.close();
  await checker?.close();
  await store?.close();
  await dns?.close();
  await rm(dir, { recursive: true, force: true });
});

/** One HTTP/1.1 exchange on a fresh keep-alive connection: the answer's bytes as they came, `Date` taken out. */
function exchange(request: string, to = port): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(to, "127.0.0.1", () => socket.write(request));
    let answer = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      answer = Buffer.concat([answer, chunk]);
      const text = answer.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/\r\ncontent-length: (\d+)\r\n/i.exec(text)?.[1] ?? 0);
      if (answer.length < end + 4 + length) return;
      socket.destroy();
      resolve(answer.toString("utf8").replace(/\r\nDate: [^\r]+/, ""));
    });
    socket.on("error", reject);
  });
}

type Shape = (secret: string) => string;

const form =
  (path: string, body: string, extra = ""): Shape =>
  (secret) =>
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
const json =
  (path: string, body: string, extra = ""): Shape =>
  (secret) =>
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
const query =
  (search: string, extra = ""): Shape =>
  (secret) =>
    `GET /?${search} HTTP/1.1\r\nHost: localhost\r\nX-Gateway-Key: ${secret}\r\n${extra}\r\n`;

const REQUESTS: Record<string, Shape> = {
  "POST /v2/ form": form("/v2/", `domain=${DOMAIN}`),
  "POST /v2 JSON": json("/v2", JSON.stringify({ domain: DOMAIN })),
  "POST /v2/ form email": form("/v2/", `email=ann%40${DOMAIN}`),
  "GET /?domain=": query(`domain=${DOMAIN}`),
  "GET /?email=": query(`email=ann@${DOMAIN}`),
};

interface Identity {
  secret: string;
}

let accounts = 0;
/** Two keys (or accounts) in the same state: a fresh one per side. */
type Kind = (plan: string) => Promise<Identity>;
const ownKey: Kind = async (plan) => store.keys.createKey({ plan, now: CREATED });
const accountKey: Kind = async (plan) => {
  accounts++;
  const { account, secret } = await store.accounts.createAccount({
    email: `a${accounts}@example.org`,
    passwordHash: null,
    role: "member",
    plan,
    now: CREATED,
  });
  const config = loadConfig({ DNS_SERVERS: dns.address, AGE_LOOKUP: "off", TEST_NAMES: "on" });
  await addAccountListEntry(store, account, { domain: LISTED, action: "block" }, CREATED, config);
  return { secret };
};

/** mailrisk_http_requests_total by its labels. */
async function requestCounts(): Promise<Map<string, number>> {
  const text = await metrics.registry.getSingleMetricAsString("mailrisk_http_requests_total");
  const counts = new Map<string, number>();
  for (const [, labels = "", value] of text.matchAll(/^mailrisk_http_requests_total\{([^}]*)\} (\d+)$/gm)) {
    counts.set(labels, Number(value));
  }
  return counts;
}

/** Counts `used` requests of the identity (the request of the test, which prepares its answer's text too). */
async function use(identity: Identity, used: number, shape: Shape): Promise<void> {
  for (let i = 0; i < used; i++) await exchange(shape(identity.secret));
}

/** The same request on both paths, for two identities in the same state: the two answers, and whether the fast path took it. */
async function bothPaths(kind: Kind, plan: string, used: number, shape: Shape) {
  const slow = await kind(plan);
  const fast = await kind(plan);
  await use(slow, used, shape);
  await use(fast, used, shape);
  fastPathOn = false;
  const viaFastify = await exchange(shape(slow.secret));
  fastPathOn = true;
  const before = fastifyRequests;
  const viaFastPath = await exchange(shape(fast.secret));
  return { viaFastify, viaFastPath, took: fastifyRequests === before };
}

describe("the fast path answers as Fastify does", () => {
  beforeAll(async () => {
    // The domains' facts looked up once and answered once: cached, their answers' text prepared.
    const key = await ownKey("plenty");
    for (const shape of Object.values(REQUESTS)) await exchange(shape(key.secret));
    await exchange(form("/v2/", `domain=${LISTED}`)(key.secret));
  });

  for (const [name, shape] of Object.entries(REQUESTS)) {
    for (const [kindName, kind] of [
      ["own key", ownKey],
      ["account key", accountKey],
    ] as const) {
      it(`${name}, ${kindName}: quota left, 1 left, none left`, async () => {
        // An account's first request reads its list: every identity has asked once before.
        for (const [plan, used, status] of [
          ["plenty", 1, 200],
          ["three", 2, 200],
          ["two", 2, 429],
        ] as const) {
          const { viaFastify, viaFastPath, took } = await bothPaths(kind, plan, used, shape);
          expect(viaFastify.slice(0, 12), viaFastify).toBe(`HTTP/1.1 ${status}`);
          expect(viaFastPath).toBe(viaFastify);
          expect(took, `${plan}: taken by the fast path`).toBe(status === 200);
        }
      });
    }
  }

  it("answers a role address of a domain whose other inputs it has parsed, as a role address and as Fastify does", async () => {
    // The fast path keeps each input's parse: `admin@` is not taken for `ann@`, nor for the domain.
    // A role address's record is kept as the domain's is, so its text is prepared and the fast path takes it.
    const post = await bothPaths(ownKey, "plenty", 1, form("/v2/", `email=admin%40${DOMAIN}`));
    expect(post.viaFastPath).toBe(post.viaFastify);
    expect(post.viaFastPath).toContain(`"is_role_based_email":true`);
    expect(post.took).toBe(true);
    const get = await bothPaths(ownKey, "plenty", 1, query(`email=admin@${DOMAIN}`));
    expect(get.viaFastPath).toBe(get.viaFastify);
    expect(get.took).toBe(true);
  });

  it("an account's key gets its list's answer, from the fast path too", async () => {
    const { viaFastify, viaFastPath, took } = await bothPaths(
      accountKey,
      "plenty",
      1,
      form("/v2/", `domain=${LISTED}`),
    );
    expect(viaFastify).toContain("Blocked by the account's list");
    expect(viaFastPath).toBe(viaFastify);
    expect(took).toBe(true);
  });

  it("hands publishable keys, other origins, explain, unknown keys and bad bodies to Fastify", async () => {
    const publishable: Kind = async (plan) =>
      store.keys.createKey({ plan, now: CREATED, publishable: true, origins: [ORIGIN] });
    const cases: [string, Kind, Shape, number][] = [
      ["publishable key, its origin", publishable, query(`domain=${DOMAIN}`, `Origin: ${ORIGIN}\r\n`), 200],
      ["publishable key, POST", publishable, form("/v2/", `domain=${DOMAIN}`, `Origin: ${ORIGIN}\r\n`), 200],
      [
        "secret key with an Origin",
        ownKey,
        query(`domain=${DOMAIN}`, "Origin: https://other.example\r\n"),
        200,
      ],
      ["explain", ownKey, json("/v2/", JSON.stringify({ domain: DOMAIN, explain: true })), 200],
      ["empty field", ownKey, form("/v2/", "domain="), 400],
      ["a number", ownKey, json("/v2/", '{"domain":5}'), 400],
      ["not JSON", ownKey, json("/v2/", '{"domain":'), 400],
      ["a space", ownKey, form("/v2/", "email=a+b%40example.com"), 400],
      ["two fields", ownKey, form("/v2/", `domain=${DOMAIN}&explain=false`), 200],
      [
        "a base64-encoded key",
        ownKey,
        (secret) => form("/v2/", `domain=${DOMAIN}`)(Buffer.from(secret).toString("base64")),
        200,
      ],
      [
        "another spelling of Bearer",
        ownKey,
        (secret) => form("/v2/", `domain=${DOMAIN}`)(secret).replace("Bearer ", "bearer "),
        200,
      ],
      [
        "charset",
        ownKey,
        (secret) =>
          form("/v2/", `domain=${DOMAIN}`)(secret).replace("urlencoded", "urlencoded; charset=utf-8"),
        200,
      ],
    ];
    for (const [name, kind, shape, status] of cases) {
      const { viaFastify, viaFastPath, took } = await bothPaths(kind, "plenty", 1, shape);
      expect(viaFastify.slice(0, 12), `${name}: ${viaFastify}`).toBe(`HTTP/1.1 ${status}`);
      expect(viaFastPath, name).toBe(viaFastify);
      expect(took, name).toBe(false);
    }
    const unknown = "mr_unknownunknownunknownunknown0";
    fastPathOn = false;
    const viaFastify = await exchange(REQUESTS["POST /v2/ form"]?.(unknown) ?? "");
    fastPathOn = true;
    expect(viaFastify.slice(0, 12)).toBe("HTTP/1.1 401");
    expect(await exchange(REQUESTS["POST /v2/ form"]?.(unknown) ?? "")).toBe(viaFastify);
  });

  it("leaves a key it does not remember to Fastify, which reads it, and takes its next request", async () => {
    const key = await store.keys.createKey({ plan: "plenty", now: CREATED });
    const shape = REQUESTS["GET /?domain="] as Shape;
    const before = fastifyRequests;
    const first = await exchange(shape(key.secret));
    expect(fastifyRequests - before).toBe(1);
    const second = await exchange(shape(key.secret));
    expect(fastifyRequests - before).toBe(1);
    expect(first.slice(0, 12)).toBe("HTTP/1.1 200");
    expect(second.slice(0, 12)).toBe("HTTP/1.1 200");
  });

  it("counts every request once, in the quota, the traffic and the metrics, as Fastify does", async () => {
    /** 30 concurrent requests of one key on every route and body; what they counted. */
    const run = async () => {
      const key = await store.keys.createKey({ plan: "plenty", now: CREATED });
      // Remembered, as after its first request: a key that is not is Fastify's (the test below).
      await store.usage.findKey(key.secret, NOW);
      const shapes = Object.values(REQUESTS);
      const requests = await requestCounts();
      traffic.take();
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => exchange(shapes[i % shapes.length]?.(key.secret) ?? "")),
      );
      const after = await requestCounts();
      const counted = new Map<string, number>();
      for (const [labels, value] of after) {
        const was = requests.get(labels) ?? 0;
        if (value !== was) counted.set(labels, value - was);
      }
      return {
        remaining: answers
          .map((answer) => Number(/x-ratelimit-requests-remaining: (\d+)/.exec(answer)?.[1]))
          .sort((a, b) => a - b),
        used: (await store.usage.keyUsage(key.key.id, NOW))?.current.used,
        traffic: traffic.take().map(({ kind, name, count }) => ({ kind, name, count })),
        counted: Object.fromEntries([...counted].sort()),
      };
    };
    fastPathOn = false;
    const viaFastify = await run();
    fastPathOn = true;
    const before = fastifyRequests;
    const viaFastPath = await run();
    // A request the sampled log is due to log is Fastify's; here no log is written.
    expect(fastifyRequests - before).toBe(0);
    expect(viaFastify.remaining).toEqual(Array.from({ length: 30 }, (_, i) => 970 + i));
    expect(viaFastify.used).toBe(30);
    expect(viaFastify.counted).toEqual({
      'method="GET",route="/",status="200"': 12,
      'method="POST",route="/v2/",status="200"': 18,
    });
    expect(viaFastPath).toEqual(viaFastify);
  });
});

describe("the request log", () => {
  /** An app on the same store and checker, logging to `lines` with ACCESS_LOG `accessLog`, on the clock `clock`; its port. */
  async function loggingApp(accessLog: "sampled" | "all", clock: () => Date = () => NOW) {
    const { lines, logger } = capturedLogger();
    const config = loadConfig({
      DNS_SERVERS: dns.address,
      AGE_LOOKUP: "off",
      TEST_NAMES: "on",
      ACCESS_LOG: accessLog,
    });
    const logged = await buildApp({ store, checker, logger, config, clock });
    const url = await logged.listen({ host: "127.0.0.1", port: 0 });
    return { lines, app: logged, port: Number(new URL(url).port) };
  }

  it("ACCESS_LOG=sampled: the fast path leaves the request due for the second's line to Fastify, which logs it", async () => {
    let now = NOW;
    const { lines, app: logged, port: to } = await loggingApp("sampled", () => now);
    const completed = () => lines.filter((line) => line.includes('"request completed"'));
    try {
      const key = await ownKey("plenty");
      const shape = REQUESTS["GET /?domain="] as Shape;
      await exchange(shape(key.secret), to);
      expect(completed()).toHaveLength(1);
      for (let i = 0; i < 200; i++) await exchange(shape(key.secret), to);
      expect(completed()).toHaveLength(1);
      now = new Date(NOW.getTime() + SAMPLE_MS);
      await exchange(shape(key.secret), to);
      expect(completed()).toHaveLength(2);
      // The line stands for itself and the 200 the fast path answered without one.
      expect(completed().at(-1)).toContain('"sampledOneIn":201');
    } finally {
      await logged.close();
    }
  });

  it("ACCESS_LOG=all: no fast path, Fastify's two lines for every request", async () => {
    const { lines, app: logged, port: to } = await loggingApp("all");
    try {
      const key = await ownKey("plenty");
      for (let i = 0; i < 5; i++) await exchange((REQUESTS["POST /v2/ form"] as Shape)(key.secret), to);
      expect(lines.filter((line) => line.includes('"incoming request"'))).toHaveLength(5);
      expect(lines.filter((line) => line.includes('"request completed"'))).toHaveLength(5);
    } finally {
      await logged.close();
    }
  });
});
