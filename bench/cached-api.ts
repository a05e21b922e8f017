/**
 * The API as the HTTP benchmarks serve it in their child process: a real store on a
 * temporary SQLite file, a key on a plan without a practical limit, one domain's facts
 * stored (so its answer is cached), the real checker, logging off.
 */
import { configWith } from "../harness/config.js";
import "./test-names.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { mxFacts } from "../harness/sample-facts.js";
import { loadConfig } from "../src/config.js";
import { buildApp } from "../src/http/app.js";
import { createChecker } from "../src/service/create-checker.js";
import { openStore } from "../src/store/index.js";

export interface CachedApi {
  app: FastifyInstance;
  url: string;
  secret: string;
  close(): Promise<void>;
}

/** Serves the API on a loopback port with `domain` cached (its stored block status `block`). */
export async function serveCachedApi(domain: string, block: boolean): Promise<CachedApi> {
  const dir = await mkdtemp(join(tmpdir(), "mailrisk-bench-"));
  const config = loadConfig({
    TEST_NAMES: "on",
    DATABASE_URL: `sqlite:${join(dir, "mailrisk.db")}`,
    DNS_SERVERS: "127.0.0.1:9",
  });
  const store = await openStore(config.database);
  await store.migrate();
  await store.plans.createPlan({ name: "bench", quota: 1_000_000_000, periodDays: 30 });
  const { secret } = await store.keys.createKey({ plan: "bench", now: new Date() });
  await store.records.saveFacts(domain, mxFacts(domain), new Date(), block);
  const checker = createChecker({ config, store, recordsFlips: true });
  const app = await buildApp({ store, checker, logger: false, config: configWith() });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    app,
    url,
    secret,
    async close() {
      await app.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
