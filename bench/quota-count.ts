/**
 * What a quota count costs on PostgreSQL (`npx tsx bench/quota-count.ts`, docs/benchmarks.md
 * "Quota receipts"): `usage.authorize` of a store on a fresh migrated database, after 300
 * to warm up, `BENCH_COUNTS` (default 3,000) one after another (one statement each), then
 * the same number from 20 keys at once (one statement per key and turn); milliseconds of
 * wall time per request. Run it in two trees (this one and one without the change, its
 * `node_modules` linked) alternately: the machine moves more between runs than the change.
 */
import { loadavg } from "node:os";
import { createTestDatabase } from "../harness/databases.js";
import { openStore } from "../src/store/index.js";

const COUNTS = Number(process.env.BENCH_COUNTS ?? 3000);
const KEYS = 20;

const database = await createTestDatabase("postgres", { migrated: true });
const store = await openStore(database.location, { onIdleError: () => {} });
try {
  await store.plans.createPlan({ name: "bench", quota: 10_000_000, periodDays: 30 });
  const now = new Date();
  const secrets: string[] = [];
  for (let index = 0; index < KEYS; index++)
    secrets.push((await store.keys.createKey({ plan: "bench", now })).secret);
  const [first = ""] = secrets;
  for (let index = 0; index < 300; index++) await store.usage.authorize(first, now);
  let started = performance.now();
  for (let index = 0; index < COUNTS; index++) await store.usage.authorize(first, now);
  const oneAfterAnother = (performance.now() - started) / COUNTS;
  started = performance.now();
  for (let round = 0; round < COUNTS / KEYS; round++) {
    await Promise.all(secrets.map((secret) => store.usage.authorize(secret, now)));
  }
  const twentyKeys = (performance.now() - started) / COUNTS;
  console.log(
    `quota counts on PostgreSQL, load average ${loadavg()[0]?.toFixed(2)}: ` +
      `${oneAfterAnother.toFixed(2)} ms a request one after another, ` +
      `${twentyKeys.toFixed(2)} ms a request from ${KEYS} keys at once`,
  );
} finally {
  await store.close();
  await database.drop();
}
