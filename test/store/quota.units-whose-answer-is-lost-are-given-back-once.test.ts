/**
 * The quota's counts when a PostgreSQL connection dies at the worst moment: after a
 * statement committed, before its answer came back (harness/postgres-cutter.ts cuts it
 * right there). A batch of counts that fails gives back what it counted, and a count
 * that never reached the database gives back nothing, nor counts when it reaches it after
 * its give-back; a refund whose
 * answer was lost lands once, tried again or not; while the database is unreachable the
 * give-back waits, and `settleQuota` makes it once the database answers
 * (src/store/quota-receipts.ts).
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../harness/databases.js";
import { type PostgresCutter, startPostgresCutter } from "../../harness/postgres-cutter.js";
import { openStore, type Store } from "../../src/store/index.js";
import { NOW, quotaOf, secretOnPlan } from "./quota-keys.js";

let database: TestDatabase;
let cutter: PostgresCutter;
/** The store of the service, through the cutter. */
let service: Store;
/** A store straight to the database, never cut: it reads what the service wrote. */
let admin: Store;
let key: { id: string; secret: string };

beforeEach(async () => {
  database = await createTestDatabase("postgres", { migrated: true });
  const direct = (database.location as { connectionString: string }).connectionString;
  cutter = await startPostgresCutter(direct);
  service = await openStore(
    { dialect: "postgres", connectionString: cutter.connectionString },
    { onIdleError: () => {} },
  );
  admin = await openStore(database.location, { onIdleError: () => {} });
  key = await secretOnPlan(admin, 100);
});

afterEach(async () => {
  await service.close();
  await admin.close();
  await cutter.close();
  await database.drop();
});

const used = async () => (await admin.usage.keyUsage(key.id, NOW))?.current.used ?? -1;
const authorize = () => service.usage.authorize(key.secret, NOW);

const COUNT = /insert into "usage"/;

it("gives back a whole batch whose count committed unseen: every request of it fails, none stays counted", async () => {
  quotaOf(await authorize());
  const cut = cutter.cutAfter(COUNT);
  // Five requests of one key in one turn: one statement counts them all.
  const batch = await Promise.allSettled(Array.from({ length: 5 }, () => authorize()));
  await cut;
  expect(batch.map((outcome) => outcome.status)).toEqual(Array(5).fill("rejected"));
  expect(await used()).toBe(1);
  expect(quotaOf(await authorize())).toMatchObject({ allowed: true, used: 2 });
});

it("gives back nothing for a count that never reached the database", async () => {
  for (let index = 0; index < 3; index++) quotaOf(await authorize());
  const cut = cutter.cutBefore(COUNT);
  await expect(authorize()).rejects.toThrow();
  await cut;
  expect(await used()).toBe(3);
  await service.usage.settleQuota();
  expect(quotaOf(await authorize())).toMatchObject({ allowed: true, used: 4 });
});

it("counts nothing with a count that reaches the database after its give-back (a statement still on its way)", async () => {
  quotaOf(await authorize());
  const holding = cutter.holdBack(COUNT);
  await expect(authorize()).rejects.toThrow();
  const held = await holding;
  expect(await used()).toBe(1);
  // Its token was cancelled by the give-back: its receipt collides, and the whole statement fails.
  expect(await held.send()).toBe("failed");
  expect(await used()).toBe(1);
  expect(quotaOf(await authorize())).toMatchObject({ allowed: true, used: 2 });
});

it("gives a refund whose answer was lost once, however often it is tried", async () => {
  for (let index = 0; index < 3; index++) quotaOf(await authorize());
  const counted = await authorize();
  const cut = cutter.cutAfter(/with given as/);
  await service.usage.refund(counted?.key ?? expect.fail("no key"), quotaOf(counted).periodStart, 2);
  await cut;
  expect(await used()).toBe(2);
  // The refund waits to be tried again (its outcome was not heard): it lands no second time.
  await service.usage.settleQuota();
  expect(await used()).toBe(2);
});

it("keeps a give-back waiting while the database is unreachable, and makes it once it answers", async () => {
  quotaOf(await authorize());
  const cut = cutter.cutAfter(COUNT);
  cutter.refuse(true);
  await expect(authorize()).rejects.toThrow();
  await cut;
  // Counted, and not given back yet: the database could not be reached to do so.
  expect(await used()).toBe(2);
  await expect(service.usage.settleQuota()).rejects.toThrow();
  cutter.refuse(false);
  await service.usage.settleQuota();
  expect(await used()).toBe(1);
  await service.usage.settleQuota();
  expect(await used()).toBe(1);
});
