/**
 * Test databases for running one suite over both dialects (STYLE habit 10): a SQLite
 * file in a fresh temporary directory, or a freshly created PostgreSQL database on the
 * local server (TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test),
 * dropped again afterwards. A migrated one (`openTestStore`, or `createTestDatabase(kind,
 * { migrated: true })`) is a copy of a template migrated once: PostgreSQL's
 * `CREATE DATABASE … TEMPLATE` of a template database named after the migrations, made
 * once for every process of the machine; SQLite's file copied from one migrated once per
 * process. A change to any migration makes a new template. The PostgreSQL databases are
 * created in a tablespace in memory where this process may make one
 * (harness/postgres-tablespace.ts): a sixteenth of the server's CPU a database.
 *
 *   describe.each(DATABASE_KINDS)("on %s", (kind) => {
 *     let db: TestStore;
 *     beforeEach(async () => { db = await openTestStore(kind); });
 *     afterEach(() => db.cleanup());
 *   });
 */
import { createHash, randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { copyFile, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { Store } from "../src/store/index.js";
import { type DatabaseLocation, openStore, type StoreOptions } from "../src/store/index.js";
import { testTablespace } from "./postgres-tablespace.js";

export const DATABASE_KINDS = ["sqlite", "postgres"] as const;
export type DatabaseKind = (typeof DATABASE_KINDS)[number];

export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface TestDatabase {
  kind: DatabaseKind;
  /** A DATABASE_URL for it. */
  url: string;
  /** The same, parsed (what `openStore` takes). */
  location: DatabaseLocation;
  drop(): Promise<void>;
}

async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
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

const MIGRATIONS_DIR = fileURLToPath(new URL("../src/store/migrations/", import.meta.url));

/** The migrations' fingerprint: a template made from other migrations is another template. */
async function migrationsFingerprint(): Promise<string> {
  const hash = createHash("sha256");
  for (const name of (await readdir(MIGRATIONS_DIR)).sort()) {
    hash.update(`${name}\0`);
    hash.update(await readFile(join(MIGRATIONS_DIR, name)));
  }
  return hash.digest("hex").slice(0, 16);
}

function postgresUrl(name: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function migrate(location: DatabaseLocation): Promise<void> {
  const store = await openStore(location);
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
}

/**
 * The migrated PostgreSQL template, made by the first process that needs it (under an
 * advisory lock, so two workers never make it twice) and marked a template that takes no
 * connection once complete: a template left half-made by a killed run is made again.
 */
async function makePostgresTemplate(): Promise<string> {
  const name = `mailrisk_template_${await migrationsFingerprint()}`;
  await withAdminClient(async (client) => {
    await client.query("select pg_advisory_lock(hashtext($1))", [name]);
    try {
      const { rows } = await client.query<{ datistemplate: boolean }>(
        "select datistemplate from pg_database where datname = $1",
        [name],
      );
      if (rows[0]?.datistemplate) return;
      if (rows.length > 0) await client.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${name}`);
      await migrate({ dialect: "postgres", connectionString: postgresUrl(name) });
      await connectionsGone(client, name);
      await client.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false IS_TEMPLATE true`);
    } finally {
      await client.query("select pg_advisory_unlock(hashtext($1))", [name]);
    }
  });
  return name;
}

/** The migrated SQLite file of this process, copied for each migrated test database. */
async function makeSqliteTemplate(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `mailrisk-template-${await migrationsFingerprint()}-`));
  const path = join(dir, "mailrisk.db");
  await migrate({ dialect: "sqlite", path });
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return path;
}

/**
 * `make`, once per process: its promise is kept, but a failed attempt (the server was
 * down) is tried again by the next caller.
 */
function onceUnlessFailed<T>(make: () => Promise<T>): () => Promise<T> {
  let kept: Promise<T> | undefined;
  return () => {
    if (kept !== undefined) return kept;
    const made = make();
    kept = made;
    made.catch(() => {
      if (kept === made) kept = undefined;
    });
    return made;
  };
}

const templates: Record<DatabaseKind, () => Promise<string>> = {
  postgres: onceUnlessFailed(makePostgresTemplate),
  sqlite: onceUnlessFailed(makeSqliteTemplate),
};
const template = (kind: DatabaseKind) => templates[kind]();

/** Where this process creates its PostgreSQL databases (harness/postgres-tablespace.ts): ` TABLESPACE name`, or nothing. */
const inTablespace = onceUnlessFailed(async () => {
  const name = await withAdminClient(testTablespace);
  return name === undefined ? "" : ` TABLESPACE ${name}`;
});

export interface TestDatabaseOptions {
  /** A copy of the migrated template instead of an empty database; default false. */
  migrated?: boolean;
}

export async function createTestDatabase(
  kind: DatabaseKind,
  { migrated = false }: TestDatabaseOptions = {},
): Promise<TestDatabase> {
  if (kind === "sqlite") {
    const dir = await mkdtemp(join(tmpdir(), "mailrisk-test-"));
    const path = join(dir, "mailrisk.db");
    if (migrated) await copyFile(await template("sqlite"), path);
    return {
      kind,
      url: `sqlite:${path}`,
      location: { dialect: "sqlite", path },
      drop: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const name = `mailrisk_test_${process.pid}_${randomBytes(6).toString("hex")}`;
  const from = migrated ? ` TEMPLATE ${await template("postgres")}` : "";
  const where = await inTablespace();
  await withAdminClient((client) => client.query(`CREATE DATABASE ${name}${from}${where}`));
  const url = postgresUrl(name);
  return {
    kind,
    url,
    location: { dialect: "postgres", connectionString: url },
    drop: () =>
      withAdminClient(async (client) => {
        await connectionsGone(client, name);
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}

/** A migrated store on a fresh test database (a copy of the template), and more instances on the same database. */
export interface TestStore {
  database: TestDatabase;
  store: Store;
  /** Another store instance on the same database (as a second service instance would be). */
  openAnother(): Promise<Store>;
  /** Closes every instance and drops the database. */
  cleanup(): Promise<void>;
}

export async function openTestStore(kind: DatabaseKind, options: StoreOptions = {}): Promise<TestStore> {
  const database = await createTestDatabase(kind, { migrated: true });
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
