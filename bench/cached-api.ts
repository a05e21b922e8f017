/**
 * The API as the HTTP benchmarks serve it in their child process: a real store on a
 * temporary SQLite file, a key on a plan without a practical limit, one domain's facts
 * stored (so its answer is cached), the real checker, logging off. With `accountList`,
 * also the keys of two accounts whose own lists hold that many entries
 * (docs/accounts.md "The account's list"): one list without the domain, one that blocks it.
 */
import { configWith } from "../harness/config.js";
import "./test-names.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { mxFacts } from "../harness/sample-facts.js";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { createChecker } from "../src/service/checking/create-checker.js";
import type { Store } from "../src/store/index.js";
import { openStore } from "../src/store/index.js";

export interface CachedApi {
  app: FastifyInstance;
  url: string;
  secret: string;
  /** With `accountList`: secrets of two accounts' keys, whose lists do not hold (`unlisted`) or block (`listed`) the domain. */
  accounts?: { unlisted: string; listed: string };
  close(): Promise<void>;
}

/** The key of a new account whose list holds `entries` entries, `blocked` among them when given. */
async function accountKey(
  store: Store,
  email: string,
  entries: number,
  blocked: string | undefined,
): Promise<string> {
  const now = new Date();
  const made = await store.accounts.createAccount({
    email,
    passwordHash: null,
    role: "member",
    plan: "bench",
    now,
  });
  const listed = Array.from({ length: entries - (blocked ? 1 : 0) }, (_, n) => ({
    domain: `listed-${n}.example.net`,
    action: n % 2 === 0 ? ("block" as const) : ("allow" as const),
    createdAt: now,
  }));
  if (blocked) listed.push({ domain: blocked, action: "block", createdAt: now });
  // Code from before the accounts' lists has no `accountLists`: its account keys answer as any key.
  await (store as Partial<Store>).accountLists?.importEntries(made.account.id, listed, entries);
  return made.secret;
}

/** Serves the API on a loopback port with `domain` cached (its stored block status `block`). */
export async function serveCachedApi(
  domain: string,
  block: boolean,
  options: { accountList?: number } = {},
): Promise<CachedApi> {
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
  const entries = options.accountList;
  const accounts = entries && {
    unlisted: await accountKey(store, "unlisted@bench.example", entries, undefined),
    listed: await accountKey(store, "listed@bench.example", entries, domain),
  };
  const checker = createChecker({ config, store, recordsFlips: true });
  const app = await buildApp({ store, checker, logger: false, config: configWith() });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    app,
    url,
    secret,
    ...(accounts && { accounts }),
    async close() {
      await app.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
