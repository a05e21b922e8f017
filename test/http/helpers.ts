/**
 * Shared set-up of the HTTP tests: the app on a real store (a temporary SQLite file
 * by default), a fake checker (unit tests only) and a movable clock.
 */
import { Writable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { configWith } from "../../harness/config.js";
import { type DatabaseKind, openTestStore } from "../../harness/databases.js";
import { sampleRecord, sampleStatus } from "../../harness/sample-record.js";
import { type AppConfig, type AppStore, buildApp } from "../../src/app.js";
import type { ParsedInput } from "../../src/core/input.js";
import { changeWatcherOf } from "../../src/service/checking/change-watcher.js";
import type { Checker, CheckResult } from "../../src/service/checking/checker.js";
import type { RequestsInProgress } from "../../src/service/jobs/requests-in-progress.js";
import type { Store } from "../../src/store/index.js";
import type { OperatorAccess } from "../../src/web/desk/operator-access.js";

export const START = new Date("2025-01-01T00:00:00Z");

export interface FakeChecker extends Checker {
  calls: ParsedInput[];
}

/** What a fake answers; without a status, the record's is taken. */
type FakeAnswer = Omit<CheckResult, "status"> & Partial<Pick<CheckResult, "status">>;

/** Answers every check with the sample record for the checked domain (or what `answer` says). */
export function fakeChecker(
  answer: (input: ParsedInput) => Promise<FakeAnswer> | FakeAnswer = (input) => ({
    record: sampleRecord({ domain: input.domain, base_domain: input.domain }),
    cache: "hit",
  }),
): FakeChecker {
  const calls: ParsedInput[] = [];
  return {
    calls,
    async check(input) {
      calls.push(input);
      const answered = await answer(input);
      return { status: sampleStatus(answered.record), ...answered };
    },
    async drain() {},
  };
}

/** A pino logger at trace level whose JSON lines land in `lines`. */
export function capturedLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  return { lines, logger: pino({ level: "trace" }, stream) };
}

export interface Clock {
  now(): Date;
  set(date: Date): void;
}

function movableClock(start: Date = START): Clock {
  let current = start;
  return {
    now: () => current,
    set(date) {
      current = date;
    },
  };
}

export interface HttpFixture {
  app: FastifyInstance;
  store: Store;
  /** The store's database, for a CLI command run against the same data. */
  databaseUrl: string;
  checker: FakeChecker;
  clock: Clock;
  /** A new key on a plan (created on first use), made at the clock's time. */
  /** `quota` null: unlimited; `origins`: a publishable key for them. */
  newKey(options?: {
    quota?: number | null;
    periodDays?: number;
    origins?: string[];
  }): Promise<{ id: string; secret: string }>;
  close(): Promise<void>;
}

/** The app's settings a test may set (the rest: CONFIG_TABLE's defaults), and the fixture's own options. */
export interface FixtureOptions extends Partial<AppConfig> {
  kind?: DatabaseKind;
  checker?: FakeChecker;
  logger?: Parameters<typeof buildApp>[0]["logger"];
  /** Wraps the slice of the store the app sees (failure injection). */
  wrapStore?: (store: AppStore) => AppStore;
  /** ADMIN_TOKEN: serves the admin API under /admin/ on the fixture's store. */
  adminToken?: string;
  /** Who the operator is: serves the console under /console on the fixture's store. */
  operatorAccess?: OperatorAccess;
  /** Serves the console with the accounts' own sessions deciding who the operator is (as `serve` does). */
  console?: boolean;
  /** `/metrics` on the app: `{ token }` (METRICS_TOKEN, or null: METRICS_PUBLIC) or false. Default: none, as the app's. */
  metricsRoute?: { token: string | null } | false;
  /** Counts the checking requests in progress (as `serve` does, for the list jobs). */
  requests?: RequestsInProgress;
}

/** `POST /v2/` checking `example.com` with a key in `Authorization: Bearer`. */
export function directCheck(fixture: Pick<HttpFixture, "app">, secret: string) {
  return fixture.app.inject({
    method: "POST",
    url: "/v2/",
    headers: { authorization: `Bearer ${secret}` },
    payload: { domain: "example.com" },
  });
}

export async function openHttpFixture(options: FixtureOptions = {}): Promise<HttpFixture> {
  const {
    kind,
    checker = fakeChecker(),
    logger,
    wrapStore,
    adminToken,
    operatorAccess,
    console: withConsole,
    metricsRoute,
    requests,
    ...config
  } = options;
  const testStore = await openTestStore(kind ?? "sqlite");
  const store = testStore.store;
  const clock = movableClock();
  const changes = changeWatcherOf(store, checker);
  void changes.start();
  const app = await buildApp({
    store: wrapStore ? wrapStore(store) : store,
    checker,
    logger: logger ?? false,
    clock: clock.now,
    config: configWith(config),
    accounts: store,
    ...(adminToken === undefined ? {} : { admin: { token: adminToken, store, changes } }),
    ...(operatorAccess === undefined ? {} : { console: { access: operatorAccess, store, changes } }),
    ...(withConsole ? { console: { store, changes } } : {}),
    ...(metricsRoute === undefined ? {} : { metricsRoute }),
    ...(requests === undefined ? {} : { requests }),
  });
  await app.ready();
  const plans = new Set((await store.plans.listPlans()).map((plan) => plan.name));
  return {
    app,
    store,
    databaseUrl: testStore.database.url,
    checker,
    clock,
    async newKey({ quota = 1000, periodDays = 30, origins } = {}) {
      const plan = `test-${quota}-${periodDays}`;
      if (!plans.has(plan)) {
        await store.plans.createPlan({ name: plan, quota, periodDays });
        plans.add(plan);
      }
      const { key, secret } = await store.keys.createKey({
        plan,
        now: clock.now(),
        ...(origins ? { publishable: true, origins } : {}),
      });
      return { id: key.id, secret };
    },
    async close() {
      await Promise.all([app.close(), changes.stop()]);
      await testStore.cleanup();
    },
  };
}
