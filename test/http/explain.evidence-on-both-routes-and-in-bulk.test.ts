/**
 * `explain=true` (docs/api.md "Evidence (`explain=true`)") on the real service: DNS over the wire to the
 * loopback server (engine zones), domain ages from a loopback RDAP server, an override
 * set through the admin API. Every kind of evidence, on `POST /v2/` (JSON and form),
 * `GET /` and `POST /v2/bulk`, is the engine's own (the docs' example of each kind), the
 * same on every route, last in the record and keeping the promises; without `explain`
 * the record is exactly as before.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configWith } from "../../harness/config.js";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import {
  type LoopbackRdap,
  type LoopbackWhois,
  startRdapServer,
  startWhoisServer,
  writeBootstrap,
} from "../../harness/loopback-registries.js";
import { fixtureZones } from "../../harness/zones.js";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { EVIDENCE_EXAMPLES, type EvidenceItem, type EvidenceKind } from "../../src/core/evidence.js";
import { FULL_FIELDS, SIMPLE_FIELDS } from "../../src/core/record.js";
import { DAY_MS } from "../../src/core/time.js";
import { changeWatcherOf } from "../../src/service/checking/change-watcher.js";
import type { Checker } from "../../src/service/checking/checker.js";
import { createChecker } from "../../src/service/checking/create-checker.js";
import { openStore, type Store } from "../../src/store/index.js";
import { expectExplained } from "../core/explained.js";

const ADMIN_TOKEN = "t".repeat(40);
const KINDS = Object.keys(EVIDENCE_EXAMPLES) as EvidenceKind[];

let dns: DnsTestServer;
let rdap: LoopbackRdap;
let whois: LoopbackWhois;
let dir: string;
let store: Store;
let checker: Checker;
let app: FastifyInstance;
let stopWatching: () => Promise<void>;
let secret: string;

/** An RDAP answer: registered `days` ago. */
function registered(days: number): string {
  const at = new Date(Date.now() - days * DAY_MS - 3_600_000).toISOString();
  return JSON.stringify({
    objectClassName: "domain",
    events: [{ eventAction: "registration", eventDate: at }],
  });
}

beforeAll(async () => {
  dns = await startDnsServer(fixtureZones("engine"));
  rdap = await startRdapServer((domain) =>
    domain === "fresh.test" ? { status: 200, body: registered(3) } : { status: 404 },
  );
  whois = await startWhoisServer(() => "No match\r\n");
  dir = await mkdtemp(join(tmpdir(), "mailrisk-explain-"));
  const config = loadConfig({
    TEST_NAMES: "on",
    DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}`,
    DNS_SERVERS: dns.address,
    DNS_TIMEOUT_MS: "300",
    RDAP_BOOTSTRAP_FILE: await writeBootstrap(
      Object.fromEntries(["test", "com", "de"].map((tld) => [tld, rdap.baseUrl])),
    ),
    WHOIS_SERVER: whois.address,
    AGE_TIMEOUT_MS: "2000",
  });
  store = await openStore(config.database);
  await store.migrate();
  await store.plans.createPlan({ name: "tests", quota: 10_000, periodDays: 30 });
  secret = (await store.keys.createKey({ plan: "tests", now: new Date() })).secret;
  checker = createChecker({ config, store });
  const changes = changeWatcherOf(store, checker);
  void changes.start();
  stopWatching = () => changes.stop();
  app = await buildApp({
    store,
    checker,
    logger: false,
    config: configWith(),
    admin: { token: ADMIN_TOKEN, store, changes },
  });
  await app.ready();
  const denied = await app.inject({
    method: "POST",
    url: "/admin/overrides",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    payload: { kind: "domain", value: "example-selfhosted.test", action: "deny", note: "chargebacks" },
  });
  expect(denied.statusCode).toBe(201);
}, 30_000);

afterAll(async () => {
  await Promise.all([app?.close(), stopWatching?.()]);
  await checker?.drain();
  await store?.close();
  await Promise.all([dns?.close(), rdap?.close(), whois?.close()]);
  await rm(dir, { recursive: true, force: true });
});

function field(input: string): "email" | "domain" {
  return input.includes("@") ? "email" : "domain";
}

async function direct(payload: Record<string, unknown>, form = false) {
  const response = await app.inject({
    method: "POST",
    url: "/v2/",
    headers: {
      authorization: `Bearer ${secret}`,
      ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
    },
    payload: form ? new URLSearchParams(payload as Record<string, string>).toString() : payload,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

async function gateway(query: string) {
  const response = await app.inject({ url: `/?${query}`, headers: { "x-gateway-key": secret } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** The example's item as the engine gives it today: the age example's dates move with the clock. */
function expectedItem(kind: EvidenceKind): Partial<EvidenceItem> {
  const { item } = EVIDENCE_EXAMPLES[kind];
  if (item.kind !== "age") return item;
  const { created_at: _createdAt, ...rest } = item;
  return rest;
}

describe.each(KINDS)("the %s evidence", (kind) => {
  const { input } = EVIDENCE_EXAMPLES[kind];

  it("is the same on POST /v2/ (JSON and form), GET / and POST /v2/bulk, last in the record", async () => {
    const json = await direct({ [field(input)]: input, explain: true });
    expect(Object.keys(json)).toEqual([...FULL_FIELDS, "evidence"]);
    expectExplained(json, json.evidence, input);
    expect(json.evidence).toContainEqual(expect.objectContaining(expectedItem(kind)));

    const form = await direct({ [field(input)]: input, explain: "true" }, true);
    expect(form.evidence).toEqual(json.evidence);

    const simple = await gateway(`${field(input)}=${encodeURIComponent(input)}&explain=true`);
    expect(Object.keys(simple)).toEqual([...SIMPLE_FIELDS, "evidence"]);
    expect(simple.evidence).toEqual(json.evidence);

    const bulk = await app.inject({
      method: "POST",
      url: "/v2/bulk",
      headers: { authorization: `Bearer ${secret}` },
      payload: { items: [input, "not a domain"], explain: true },
    });
    expect(bulk.statusCode, bulk.body).toBe(200);
    const [result, problem] = bulk.json().results;
    expect(Object.keys(result)).toEqual(["input", ...FULL_FIELDS, "evidence"]);
    expect(result.evidence).toEqual(json.evidence);
    expect(problem).toMatchObject({ input: "not a domain", code: "invalid_domain" });
    expect(problem.evidence).toBeUndefined();
  });

  it("is left out without explain, and with explain=false", async () => {
    expect(Object.keys(await direct({ [field(input)]: input }))).toEqual(FULL_FIELDS);
    expect(Object.keys(await direct({ [field(input)]: input, explain: false }))).toEqual(FULL_FIELDS);
    expect(Object.keys(await gateway(`${field(input)}=${encodeURIComponent(input)}`))).toEqual(SIMPLE_FIELDS);
    expect(Object.keys(await gateway(`${field(input)}=${encodeURIComponent(input)}&explain=false`))).toEqual(
      SIMPLE_FIELDS,
    );
    const bulk = await app.inject({
      method: "POST",
      url: "/v2/bulk",
      headers: { authorization: `Bearer ${secret}` },
      payload: { items: [input] },
    });
    expect(Object.keys(bulk.json().results[0])).toEqual(["input", ...FULL_FIELDS]);
  });
});

it("refuses an explain that is neither true nor false, as problem JSON", async () => {
  const response = await app.inject({
    url: "/?domain=gmail.com&explain=yes",
    headers: { "x-gateway-key": secret },
  });
  expect(response.statusCode).toBe(400);
  expect(response.json()).toMatchObject({ code: "invalid_body", detail: "`explain` takes true or false." });
});
