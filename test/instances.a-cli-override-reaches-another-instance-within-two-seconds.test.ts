/**
 * Two instances sharing PostgreSQL, as users run them (`mailrisk serve --workers 1` each),
 * and the CLI run as a third process: an override set with `mailrisk overrides add` holds
 * on both instances within 2 s, with no purge and no restart, and both answer the same
 * `block_status_changed_at` for the flip. Real DNS over the wire to a loopback server.
 * The 2 s are a quiet machine's, stretched by the machine's pace (harness/machine-pace.ts).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createKeyIn } from "../harness/databases.js";
import { checkOn, firstAnswerOn, runCli } from "../harness/instances.js";
import { type Pace, startPace } from "../harness/machine-pace.js";
import { mailZones } from "../harness/mail-zones.js";
import { type ServiceWorld, startServiceWorld } from "../harness/service-world.js";

const DOMAIN = "example-shop.com";
const WITHIN_MS = 2000;

let world: ServiceWorld;
let secret: string;

beforeAll(async () => {
  world = await startServiceWorld({
    zones: mailZones([DOMAIN], "own-server"),
    database: "postgres",
    instances: 2,
  });
  secret = await createKeyIn(world.database.location, "team", 10_000);
}, 90_000);

afterAll(async () => {
  if (world) expect(await world.stop()).toEqual([0, 0]);
});

/** Every instance's first answer with `block`, once the CLI has made its change. */
const everyInstance = (block: boolean, since: number, pace: Pace) =>
  Promise.all(
    world.services.map((instance) =>
      firstAnswerOn(
        instance,
        secret,
        { domain: DOMAIN },
        (record) => record.block === block,
        since,
        pace.bound(5000),
      ),
    ),
  );

it("takes an override set with the CLI on both instances within 2 s, with one changed time", async () => {
  const before = await Promise.all(
    world.services.map((instance) => checkOn(instance, secret, { domain: DOMAIN })),
  );
  expect(before.map(({ record }) => record.block)).toEqual([false, false]);
  // Times have seconds precision: the flip below must fall in a later second than the first look-up.
  await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 10));
  const pace = startPace();

  expect((await runCli(["overrides", "add", "deny", DOMAIN, "--note", "chargebacks"], world.env)).code).toBe(
    0,
  );
  const after = await everyInstance(true, Date.now(), pace);
  for (const { record, after: took } of after) {
    expect(record).toMatchObject({ block: true, text: "Blocked by the operator" });
    expect(took).toBeLessThan(pace.bound(WITHIN_MS));
  }
  const [first, second] = after.map(({ record }) => record.block_status_changed_at);
  expect(first).toBe(second);
  expect(first).not.toBe(before[0]?.record.block_status_changed_at);

  expect((await runCli(["overrides", "remove", DOMAIN], world.env)).code).toBe(0);
  for (const { record, after: took } of await everyInstance(false, Date.now(), pace)) {
    expect(record).toMatchObject({ block: false, text: "Looks okay" });
    expect(took).toBeLessThan(pace.bound(WITHIN_MS));
  }
}, 60_000);
