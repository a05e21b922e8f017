/**
 * The PostgreSQL test databases are created in a tablespace in memory when the server runs
 * on this machine and the test process runs as root, as `.ci/run` does
 * (harness/postgres-tablespace.ts); a tablespace whose folder is gone (a reboot empties
 * /dev/shm) is dropped with its databases and made again; TEST_POSTGRES_TABLESPACE=off
 * keeps the server's default.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, POSTGRES_ADMIN_URL } from "../../harness/databases.js";
import { testTablespace } from "../../harness/postgres-tablespace.js";

/** Where the harness may make the tablespace: as root, and not told otherwise. */
const asRoot = process.getuid?.() === 0 && process.env.TEST_POSTGRES_TABLESPACE !== "off";

let admin: pg.Client;
beforeAll(async () => {
  admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
});
afterAll(() => admin?.end());

async function tablespaceOf(database: string): Promise<string | undefined> {
  const { rows } = await admin.query<{ spcname: string }>(
    "select t.spcname from pg_database d join pg_tablespace t on d.dattablespace = t.oid where d.datname = $1",
    [database],
  );
  return rows[0]?.spcname;
}

it.skipIf(!asRoot)("creates a migrated database in the tablespace in memory", async () => {
  const database = await createTestDatabase("postgres", { migrated: true });
  try {
    const name = new URL(database.url).pathname.slice(1);
    expect(await tablespaceOf(name)).toBe("mailrisk_test");
    const { rows } = await admin.query<{ location: string }>(
      "select pg_tablespace_location(oid) as location from pg_tablespace where spcname = 'mailrisk_test'",
    );
    expect(rows[0]?.location).toBe("/dev/shm/mailrisk-pg");
  } finally {
    await database.drop();
  }
});

it.skipIf(!asRoot)(
  "makes a tablespace whose folder went again, dropping the databases left in it",
  async () => {
    const place = { name: `mailrisk_gone_${randomBytes(4).toString("hex")}`, folder: "" };
    place.folder = `/dev/shm/${place.name}`;
    expect(await testTablespace(admin, place)).toBe(place.name);
    const left = `${place.name}_db`;
    await admin.query(`CREATE DATABASE ${left} TABLESPACE ${place.name}`);
    // As a reboot leaves it: nothing of the database waits to be written. A folder removed
    // under writes the server still owes would fail the next checkpoint, and with it
    // another test's DROP DATABASE (which asks for one).
    await admin.query("CHECKPOINT");
    rmSync(place.folder, { recursive: true, force: true });
    try {
      // The server owes the folder nothing: a checkpoint now still succeeds.
      await admin.query("CHECKPOINT");
      expect(await testTablespace(admin, place)).toBe(place.name);
      expect(await tablespaceOf(left)).toBeUndefined();
      await admin.query(`CREATE DATABASE ${left} TABLESPACE ${place.name}`);
      expect(await tablespaceOf(left)).toBe(place.name);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${left}`);
      await admin.query(`DROP TABLESPACE IF EXISTS ${place.name}`);
      rmSync(place.folder, { recursive: true, force: true });
    }
  },
);

it("keeps the server's default tablespace with TEST_POSTGRES_TABLESPACE=off", async () => {
  const before = process.env.TEST_POSTGRES_TABLESPACE;
  process.env.TEST_POSTGRES_TABLESPACE = "off";
  try {
    expect(await testTablespace(admin, { name: "mailrisk_never", folder: "/dev/shm/mailrisk-never" })).toBe(
      undefined,
    );
  } finally {
    if (before === undefined) delete process.env.TEST_POSTGRES_TABLESPACE;
    else process.env.TEST_POSTGRES_TABLESPACE = before;
  }
  const { rows } = await admin.query("select 1 from pg_tablespace where spcname = 'mailrisk_never'");
  expect(rows).toEqual([]);
});
