/**
 * The service in the test's own process, as `serve` wires it: the real checker (and app)
 * on a real store, DNS over the wire to a loopback server the test owns (and may stop
 * and restart), on the test's clock. `openLiveService`: on a temporary SQLite file, with
 * one key on a plan of 1,000 requests; `liveChecker`: the checker alone, on a store the
 * test opened.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import type { DomainLists } from "../src/core/list-interfaces.js";
import { changeWatcherOf } from "../src/service/checking/change-watcher.js";
import type { Checker, Lane } from "../src/service/checking/checker.js";
import { createChecker } from "../src/service/checking/create-checker.js";
import { openStore, type Store } from "../src/store/index.js";
import { configWith } from "./config.js";

export interface LiveCheckerOptions {
  /** `127.0.0.1:<port>` of the loopback DNS server. */
  dnsAddress: string;
  clock: () => Date;
  /** Default 2,000. */
  dnsTimeoutMs?: number;
  /** Default: the bundled lists. */
  lists?: DomainLists;
}

export interface LiveServiceOptions extends LiveCheckerOptions {
  /** ADMIN_TOKEN: serves the admin API. */
  adminToken?: string;
}

/** A keyed caller's lane, as the API routes check: its answers record block-status flips. */
export const API_LANE: Lane = { budget: "api", client: "test key" };

/** The real checker on `store`, domain age off, recording flips of API answers as `serve` does. */
export function liveChecker(store: Store, options: LiveCheckerOptions): Checker {
  const config = loadConfig({
    TEST_NAMES: "on",
    DNS_SERVERS: options.dnsAddress,
    DNS_TIMEOUT_MS: String(options.dnsTimeoutMs ?? 2000),
    AGE_LOOKUP: "off",
  });
  const { clock, lists } = options;
  return createChecker({ config, store, clock, recordsFlips: true, ...(lists ? { lists } : {}) });
}

export interface LiveService {
  app: FastifyInstance;
  store: Store;
  checker: Checker;
  /** The key's secret. */
  secret: string;
  /** DATABASE_URL of its SQLite file, for a CLI on the same database. */
  databaseUrl: string;
  /** `POST /v2/` with the key; the record, or an error naming the status and body. */
  check(domain: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function openLiveService(options: LiveServiceOptions): Promise<LiveService> {
  const dir = await mkdtemp(join(tmpdir(), "mailrisk-live-"));
  const databaseUrl = `sqlite:${join(dir, "mailrisk.db")}`;
  const store = await openStore(loadConfig({ DATABASE_URL: databaseUrl }).database);
  await store.migrate();
  await store.plans.createPlan({ name: "tests", quota: 1000, periodDays: 30 });
  const { secret } = await store.keys.createKey({ plan: "tests", now: options.clock() });
  const checker = liveChecker(store, options);
  const changes = changeWatcherOf(store, checker);
  void changes.start();
  const app = await buildApp({
    store,
    checker,
    logger: false,
    clock: options.clock,
    config: configWith(),
    ...(options.adminToken ? { admin: { token: options.adminToken, store, changes } } : {}),
  });
  await app.ready();
  return {
    app,
    store,
    checker,
    secret,
    databaseUrl,
    async check(domain) {
      const response = await app.inject({
        method: "POST",
        url: "/v2/",
        headers: { authorization: `Bearer ${secret}` },
        payload: { domain },
      });
      if (response.statusCode !== 200) throw new Error(`${response.statusCode}: ${response.body}`);
      return response.json();
    },
    async close() {
      await Promise.all([app.close(), changes.stop()]);
      await checker.drain();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
