/**
 * Test databases for running one suite over both dialects (STYLE habit 10): a SQLite
 * file in a fresh temporary directory, or a freshly created PostgreSQL database on the
 * local server (TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test),
 * dropped again afterwards.
 *
 *   describe.each(DATABASE_KINDS)("on %s", (kind) => {
 *     let db: TestStore;
 *     beforeEach(async () => { db = await openTestStore(kind); });
 *     afterEach(() => db.cleanup());
 *   });
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { type DatabaseLocation, openStore, type StoreOptions } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";

export const DATABASE_KINDS = ["sqlite", "postgres"] as const;
export type DatabaseKind = (typeof DATABASE_KINDS)[number];

const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface TestDatabase {
  kind: DatabaseKind;
  /** A DATABASE_URL for it. */
  url: string;
  /** The same, parsed (what `openStore` takes). */
  location: DatabaseLocation;
  drop(): Promise<void>;
}

async function withAdminClient(work: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/** How long a drop waits for the test's closed pools to leave before it forces them out. */
const CONNECTIONS_GONE_MS = 2000;

/**
 * Waits until no connection to the database is left. A pool that was closed ends its
 * connections without waiting for them; forced out by the drop, they would report
 * "terminating connection due to administrator command" to nobody but stderr.
 */
async function connectionsGone(client: pg.Client, name: string): Promise<void> {
  const deadline = Date.now() + CONNECTIONS_GONE_MS;
  while (Date.now() < deadline) {
    const { rows } = await client.query<{ count: string }>(
      "select count(*) from pg_stat_activity where datname = $1",
      [name],
    );
    if (Number(rows[0]?.count ?? 0) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === "sqlite") {
    const dir = await mkdtemp(join(tmpdir(), "mailrisk-test-"));
    const path = join(dir, "mailrisk.db");
    return {
      kind,
      url: `sqlite:${path}`,
      location: { dialect: "sqlite", path },
      drop: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const name = `mailrisk_test_${process.pid}_${randomBytes(6).toString("hex")}`;
  await withAdminClient((client) => client.query(`CREATE DATABASE ${name}`).then(() => undefined));
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    kind,
    url: url.toString(),
    location: { dialect: "postgres", connectionString: url.toString() },
    drop: () =>
      withAdminClient(async (client) => {
        await connectionsGone(client, name);
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}

/** A migrated store on a fresh test database, and more instances on the same database. */
export interface TestStore {
  database: TestDatabase;
  store: Store;
  /** Another store instance on the same database (as a second service instance would be). */
  openAnother(): Promise<Store>;
  /** Closes every instance and drops the database. */
  cleanup(): Promise<void>;
}

export async function openTestStore(kind: DatabaseKind, options: StoreOptions = {}): Promise<TestStore> {
  const database = await createTestDatabase(kind);
  const stores: Store[] = [];
  const open = async () => {
    const store = await openStore(database.location, options);
    stores.push(store);
    return store;
  };
  const store = await open();
  await store.migrate();
  return {
    database,
    store,
    openAnother: open,
    cleanup: async () => {
      await Promise.all(stores.map((s) => s.close()));
      await database.drop();
    },
  };
}

/**
 * A new key on a new plan of `quota` requests per 30 days, in a database a service
 * (another process) already migrated; its secret.
 */
export async function createKeyIn(location: DatabaseLocation, plan: string, quota: number): Promise<string> {
  return (await createKeysIn(location, plan, quota, 1))[0] as string;
}

/** `count` keys on a new plan of `quota` per 30 days, made in one store session; their secrets. */
export async function createKeysIn(
  location: DatabaseLocation,
  plan: string,
  quota: number,
  count: number,
): Promise<string[]> {
  const store = await openStore(location);
  try {
    await store.plans.createPlan({ name: plan, quota, periodDays: 30 });
    const secrets: string[] = [];
    for (let i = 0; i < count; i++)
      secrets.push((await store.keys.createKey({ plan, now: new Date() })).secret);
    return secrets;
  } finally {
    await store.close();
  }
}
