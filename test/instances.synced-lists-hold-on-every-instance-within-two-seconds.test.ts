/**
 * Lists synced while the service runs, end to end: two instances sharing PostgreSQL
 * (`mailrisk serve`, each its own process), upstream lists on a loopback HTTP server, the
 * CLI as a third process. A domain a source adds is disposable and blocked on both
 * instances within 2 s of `mailrisk lists update`, with no restart; a domain every source
 * removes stops being disposable; a source listing big providers, public suffixes or a
 * reserved name changes none of their answers; rollback returns to the previous version;
 * and a third instance with LIST_SYNC_INTERVAL=2s syncs by itself. The times are a quiet
 * machine's, stretched by the machine's pace (harness/machine-pace.ts).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createKeyIn } from "../harness/databases.js";
import { checkOn, firstAnswerOn, runCli } from "../harness/instances.js";
import { type ListServer, madeUpList, startListServer } from "../harness/list-server.js";
import { type Pace, startPace } from "../harness/machine-pace.js";
import { mailZones } from "../harness/mail-zones.js";
import { type ServiceProcess, startServiceProcess } from "../harness/service-process.js";
import { type ServiceWorld, startServiceWorld } from "../harness/service-world.js";

const FRESH = "fresh-throwaway.com";
const NEVER = ["gmail.com", "outlook.com", "example.com", "co.uk", "edu.pl"];
const WITHIN_MS = 2000;

let lists: ListServer;
let world: ServiceWorld;
let secret: string;

beforeAll(async () => {
  lists = await startListServer();
  lists.publish("/up.txt", { body: madeUpList(20) });
  world = await startServiceWorld({
    zones: mailZones([FRESH, "scheduled-throwaway.com", "gmail.com", "outlook.com"], "own-server"),
    database: "postgres",
    instances: 2,
    env: { LIST_SOURCES: `upstream=${lists.url}/up.txt`, LIST_SYNC_INTERVAL: "off" },
  });
  secret = await createKeyIn(world.database.location, "team", 100_000);
}, 90_000);

afterAll(async () => {
  const codes = await world?.stop();
  await lists?.close();
  if (world) expect(codes).toEqual([0, 0]);
});

const check = (instance: ServiceProcess, domain: string) => checkOn(instance, secret, { domain });

/** `mailrisk lists <args>` on the shared database; its exit code. */
const cli = async (...args: string[]) => (await runCli(["lists", ...args], world.env)).code;

/** How long after `since` every instance answered `is_disposable` as expected (stops trying at 5 s, paced). */
async function untilEvery(
  domain: string,
  disposable: boolean,
  since: number,
  pace: Pace,
  among = world.services,
) {
  for (const instance of among) {
    const { record } = await firstAnswerOn(
      instance,
      secret,
      { domain },
      (r) => r.is_disposable === disposable,
      since,
      pace.bound(5000),
    );
    expect(record).toMatchObject({ is_disposable: disposable, block: disposable });
  }
  return Date.now() - since;
}

it("takes a version accepted by the CLI on both instances within 2 s, and a removal, and a rollback", async () => {
  const instances = world.services;
  const before = await Promise.all(NEVER.map((domain) => check(instances[0] as ServiceProcess, domain)));
  const fresh = (await check(instances[1] as ServiceProcess, FRESH)).record;
  expect(fresh).toMatchObject({ is_disposable: false, block: false });
  // Times have seconds precision: the flip below must fall in a later second to be seen moving.
  await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 10));
  const pace = startPace();

  lists.publish("/up.txt", { body: `${madeUpList(20)}${FRESH}\n${NEVER.join("\n")}\n` });
  expect(await cli("update")).toBe(0);
  expect(await untilEvery(FRESH, true, Date.now(), pace)).toBeLessThan(pace.bound(WITHIN_MS));
  const { record } = await check(instances[0] as ServiceProcess, FRESH);
  expect(record).toMatchObject({ reason: "Disposable", disposable_provider: FRESH });
  // The answered block status flipped: its time moved, the same on both instances.
  expect(record.block_status_changed_at).not.toBe(fresh.block_status_changed_at);
  expect((await check(instances[1] as ServiceProcess, FRESH)).record.block_status_changed_at).toBe(
    record.block_status_changed_at,
  );
  for (const instance of instances) {
    const after = await Promise.all(NEVER.map((domain) => check(instance, domain)));
    expect(after).toEqual(before);
  }

  lists.publish("/up.txt", { body: madeUpList(20) });
  expect(await cli("update")).toBe(0);
  expect(await untilEvery(FRESH, false, Date.now(), pace)).toBeLessThan(pace.bound(WITHIN_MS));

  expect(await cli("rollback")).toBe(0);
  expect(await untilEvery(FRESH, true, Date.now(), pace)).toBeLessThan(pace.bound(WITHIN_MS));
}, 60_000);

it("syncs on its own schedule with LIST_SYNC_INTERVAL", async () => {
  lists.publish("/up.txt", { body: `${madeUpList(20)}${FRESH}\nscheduled-throwaway.com\n` });
  const pace = startPace();
  const scheduled = await startServiceProcess({
    workers: 1,
    env: { ...world.env, LIST_SYNC_INTERVAL: "2s" },
  });
  try {
    const started = Date.now();
    expect(await untilEvery("scheduled-throwaway.com", true, started, pace, [scheduled])).toBeLessThan(
      pace.bound(5000),
    );
    // The other instances take the version it accepted, through the change signal.
    expect(await untilEvery("scheduled-throwaway.com", true, Date.now(), pace)).toBeLessThan(
      pace.bound(WITHIN_MS),
    );
  } finally {
    expect(await scheduled.stop()).toBe(0);
  }
}, 60_000);
