/**
 * `mailrisk serve --workers 2` as users run it, with the admin API on: a change the
 * operator makes (an override set and removed, a purge, a plan's quota), through the
 * admin API or straight in the database as the CLI does, holds on every worker within a
 * second, although each worker remembers records and keys for up to 30 s: the store's
 * change signal reaches every process. Every check goes on a new connection, so the
 * primary hands the checks to both workers in turn. Real DNS over the wire to a
 * loopback server that is restarted on its port with other answers; SQLite. The second
 * is a quiet machine's, stretched by the machine's pace (harness/machine-pace.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyIn } from "../harness/databases.js";
import { type DnsTestServer, startDnsServer } from "../harness/dns-server.js";
import { type Pace, startPace } from "../harness/machine-pace.js";
import { mailZones } from "../harness/mail-zones.js";
import { requestOnNewConnection } from "../harness/service-process.js";
import { type ServiceWorld, startServiceWorld } from "../harness/service-world.js";
import { openStore } from "../src/store/index.js";

const DOMAIN = "example-shop.com";
const TOKEN = "z".repeat(40);
/** Checks per round: each worker gets several. */
const ROUND = 8;

/** The test's own: restarted on its port with other answers. */
let dns: DnsTestServer;
let world: ServiceWorld;
let secret: string;

beforeAll(async () => {
  dns = await startDnsServer(mailZones([DOMAIN], "own-server"));
  world = await startServiceWorld({ dns, workers: 2, env: { ADMIN_TOKEN: TOKEN } });
  secret = await createKeyIn(world.database.location, "team", 10_000);
}, 60_000);

afterAll(async () => {
  const codes = await world?.stop();
  await dns?.close();
  if (world) expect(codes).toEqual([0]);
});

/** One request on a connection of its own (the primary hands connections to the workers in turn). */
async function send(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const { status, text } = await requestOnNewConnection(`${world.service.url}${path}`, {
    method,
    headers,
    body,
  });
  return { status, json: JSON.parse(text) as Record<string, unknown> };
}

const admin = (method: string, path: string, body: unknown) =>
  send(method, path, { authorization: `Bearer ${TOKEN}` }, body);

/** ROUND checks one after another, each on a new connection: the statuses and the records. */
async function round() {
  const answers = [];
  for (let i = 0; i < ROUND; i++) {
    answers.push(await send("POST", "/v2/", { authorization: `Bearer ${secret}` }, { domain: DOMAIN }));
  }
  return answers;
}

const fields = (answers: Awaited<ReturnType<typeof round>>, name: string) =>
  new Set(answers.map((answer) => answer.json[name]));

/** How long a change may take to hold on every worker: the change signal's second, and room for a round. */
const WITHIN_MS = 1500;

/**
 * The values `pick` reads in rounds of checks, once every worker answers `expected` (at
 * most WITHIN_MS, paced, after `since`).
 */
async function untilEveryWorker(
  pick: (answers: Awaited<ReturnType<typeof round>>) => Set<unknown>,
  expected: unknown,
  since: number,
  pace: Pace,
) {
  const within = pace.bound(WITHIN_MS);
  for (;;) {
    const seen = pick(await round());
    if ((seen.size === 1 && seen.has(expected)) || Date.now() - since > within) return seen;
  }
}

const field = (name: string) => (answers: Awaited<ReturnType<typeof round>>) => fields(answers, name);

describe("serve --workers 2 with the admin API", () => {
  it("applies overrides, purges and plan changes on every worker within a second", async () => {
    // Both workers remember the record, and both have loaded the overrides (none).
    expect(fields(await round(), "text")).toEqual(new Set(["Looks okay"]));
    const pace = startPace();

    let since = Date.now();
    const set = await admin("POST", "/admin/overrides", { kind: "domain", value: DOMAIN, action: "deny" });
    expect(set.status).toBe(201);
    expect(await untilEveryWorker(field("text"), "Blocked by the operator", since, pace)).toEqual(
      new Set(["Blocked by the operator"]),
    );

    since = Date.now();
    const removed = await admin("POST", "/admin/overrides/remove", { kind: "domain", value: DOMAIN });
    expect(removed.json).toEqual({ removed: true });
    expect(await untilEveryWorker(field("text"), "Looks okay", since, pace)).toEqual(new Set(["Looks okay"]));
    expect(fields(await round(), "mx_host")).toEqual(new Set([`mail.${DOMAIN}`]));

    // The domain moves its mail to Google; the workers remember the old facts until the purge.
    const port = dns.port;
    await dns.close();
    dns = await startDnsServer(mailZones([DOMAIN], "google-workspace"), { port });
    expect(fields(await round(), "mx_host")).toEqual(new Set([`mail.${DOMAIN}`]));
    since = Date.now();
    const purged = await admin("POST", "/admin/records/purge", { domains: [DOMAIN] });
    expect(purged.json).toEqual({ purged: 1 });
    expect(await untilEveryWorker(field("mx_host"), "aspmx.l.google.com", since, pace)).toEqual(
      new Set(["aspmx.l.google.com"]),
    );

    // An override set in the database, as `mailrisk overrides add` does, with no admin call.
    const store = await openStore(world.database.location);
    try {
      since = Date.now();
      await store.overrides.setOverride({
        kind: "domain",
        value: DOMAIN,
        action: "deny",
        note: "from the CLI",
        createdAt: new Date(),
      });
    } finally {
      await store.close();
    }
    expect(await untilEveryWorker(field("text"), "Blocked by the operator", since, pace)).toEqual(
      new Set(["Blocked by the operator"]),
    );

    // The plan's quota comes down to what the key has used: every worker refuses the next check.
    const used = (await send("GET", "/v2/usage", { authorization: `Bearer ${secret}` })).json.used;
    since = Date.now();
    const lowered = await admin("PATCH", "/admin/plans/team", { quota: used });
    expect(lowered.status).toBe(200);
    const statuses = (answers: Awaited<ReturnType<typeof round>>) => new Set(answers.map((a) => a.status));
    expect(await untilEveryWorker(statuses, 429, since, pace)).toEqual(new Set([429]));
  }, 60_000);
});
