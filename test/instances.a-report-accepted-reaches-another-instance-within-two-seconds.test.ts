/**
 * The whole report loop on two instances sharing PostgreSQL, as users run them
 * (`mailrisk serve --workers 1` each), with the CLI as a third process: a key reports a
 * wrong answer on one instance (and again on the other: the same report), the operator
 * sees it with today's evidence in `mailrisk reports list` and `/admin/reports`,
 * accepts it with the CLI, and both instances answer the new verdict within 2 s, with
 * one changed time and the override in their evidence; the key reads "accepted" on
 * either. A rejection through the admin API leaves the answer as it is. The 2 s are a
 * quiet machine's, stretched by the machine's pace (harness/machine-pace.ts).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createKeyIn } from "../harness/databases.js";
import { checkOn, firstAnswerOn, runCli } from "../harness/instances.js";
import { type Pace, startPace } from "../harness/machine-pace.js";
import { mailZones } from "../harness/mail-zones.js";
import { requestOnNewConnection, type ServiceProcess } from "../harness/service-process.js";
import { type ServiceWorld, startServiceWorld } from "../harness/service-world.js";

const DOMAIN = "example-shop.com";
const WITHIN_MS = 2000;
const ADMIN_TOKEN = "r".repeat(40);

let world: ServiceWorld;
let secret: string;

beforeAll(async () => {
  world = await startServiceWorld({
    zones: mailZones([DOMAIN], "own-server"),
    database: "postgres",
    instances: 2,
    env: { ADMIN_TOKEN },
  });
  secret = await createKeyIn(world.database.location, "team", 10_000);
}, 90_000);

afterAll(async () => {
  if (world) expect(await world.stop()).toEqual([0, 0]);
});

type Json = Record<string, unknown>;

async function request(
  instance: ServiceProcess,
  path: string,
  options: { method?: string; body?: unknown; admin?: boolean } = {},
): Promise<{ status: number; json: Json & Json[] }> {
  const { status, text } = await requestOnNewConnection(`${instance.url}${path}`, {
    method: options.method ?? "GET",
    headers: { authorization: `Bearer ${options.admin ? ADMIN_TOKEN : secret}` },
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  return { status, json: JSON.parse(text) };
}

async function check(instance: ServiceProcess): Promise<Json & { evidence: Json[] }> {
  const { status, record } = await checkOn(instance, secret, { domain: DOMAIN, explain: true });
  expect(status).toBe(200);
  return record as Json & { evidence: Json[] };
}

/** `mailrisk <args>` as a process of its own on the shared database: its exit code and output. */
const cli = (...args: string[]) => runCli(args, world.env);

/** The first answer of `instance` with `block` as expected, and how long after `since` it came; stops at 5 s (paced). */
async function firstAnswer(instance: ServiceProcess, block: boolean, since: number, pace: Pace) {
  const { record, after } = await firstAnswerOn(
    instance,
    secret,
    { domain: DOMAIN, explain: true },
    (answer) => answer.block === block,
    since,
    pace.bound(5000),
  );
  return { record: record as Json & { evidence: Json[] }, after };
}

it("files on one instance, is accepted with the CLI, and both answer it within 2 s", async () => {
  const instances = world.services;
  const [first, second] = instances as [ServiceProcess, ServiceProcess];
  const before = await Promise.all(instances.map(check));
  expect(before.map((record) => record.block)).toEqual([false, false]);

  const filed = await request(first, "/v2/reports", {
    method: "POST",
    body: { domain: DOMAIN, expected: "block", note: "chargebacks from this shop" },
  });
  expect(filed.status).toBe(202);
  expect(filed.json).toMatchObject({ status: "open", domain: DOMAIN });
  const id = filed.json.id as string;
  const again = await request(second, "/v2/reports", {
    method: "POST",
    body: { email: `x@${DOMAIN}`, expected: "block" },
  });
  expect(again).toMatchObject({ status: 202, json: { id } });

  // The operator's view on either side: the report beside today's answer and its evidence.
  const queue = await request(second, "/admin/reports", { admin: true });
  expect(queue.status).toBe(200);
  expect(queue.json).toEqual([
    expect.objectContaining({ id, reporters: 1, today: expect.objectContaining({ answer: "allow" }) }),
  ]);
  const listed = await cli("reports", "list", "--json");
  expect(listed.code).toBe(0);
  const [entry] = JSON.parse(listed.stdout);
  expect(entry).toMatchObject({ id, domain: DOMAIN, expected: "block", today: { answer: "allow" } });
  expect(entry.today.evidence).toEqual((queue.json[0] as { today: { evidence: Json[] } }).today.evidence);
  expect(entry.today.evidence.length).toBeGreaterThan(0);

  const pace = startPace();
  expect((await cli("reports", "accept", id, "--note", "confirmed with the bank")).code).toBe(0);
  const since = Date.now();
  const after = await Promise.all(instances.map((instance) => firstAnswer(instance, true, since, pace)));
  for (const { record, after: took } of after) {
    expect(record).toMatchObject({ block: true, text: "Blocked by the operator" });
    expect(record.evidence[0]).toMatchObject({
      kind: "override",
      id: `domain:${DOMAIN}`,
      action: "deny",
      note: `report ${id}: confirmed with the bank`,
      risk: 100,
    });
    expect(took).toBeLessThan(pace.bound(WITHIN_MS));
  }
  const [changedFirst, changedSecond] = after.map(({ record }) => record.block_status_changed_at);
  expect(changedFirst).toBe(changedSecond);
  expect(changedFirst).not.toBe(before[0]?.block_status_changed_at);

  for (const instance of instances) {
    expect((await request(instance, `/v2/reports/${id}`)).json).toMatchObject({ id, status: "accepted" });
  }

  // A report the operator rejects changes nothing.
  const disagreed = await request(second, "/v2/reports", {
    method: "POST",
    body: { domain: DOMAIN, expected: "allow" },
  });
  expect(disagreed.status).toBe(202);
  const rejected = await request(first, `/admin/reports/${disagreed.json.id}/reject`, {
    method: "POST",
    body: { note: "the bank confirmed it" },
    admin: true,
  });
  expect(rejected).toMatchObject({ status: 200, json: { status: "rejected", override: null } });
  for (const instance of instances) expect((await check(instance)).block).toBe(true);
  expect((await request(second, `/v2/reports/${disagreed.json.id}`)).json.status).toBe("rejected");
}, 60_000);
