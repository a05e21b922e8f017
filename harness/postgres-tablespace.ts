/**
 * The tablespace the PostgreSQL test databases are created in: `mailrisk_test`, a folder
 * in the machine's memory (/dev/shm), when the server runs on this machine and this
 * process may hand the folder to the server's user (root, as `.ci/run` runs). Measured on
 * the 2-core VM (2026-11-29): `CREATE DATABASE … TEMPLATE` took 405 ms of the server's
 * CPU on its disk (ext4 without a journal, where each new file's inode is found by
 * scanning the recently deleted ones, and a database is some 300 files), 25 ms in memory;
 * the suite creates hundreds. The template stays in the default tablespace (it outlives
 * a reboot); the databases made from it are dropped after their test.
 *
 * Anywhere else (a remote server, no root, TEST_POSTGRES_TABLESPACE=off) the databases
 * go to the server's default tablespace, as before. A tablespace whose folder went with a
 * reboot is dropped with the databases left in it, and made again.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, statSync } from "node:fs";
import type pg from "pg";

/** The tablespace's name and folder (a test of this module names its own). */
export interface TablespacePlace {
  name: string;
  folder: string;
}

const PLACE: TablespacePlace = { name: "mailrisk_test", folder: "/dev/shm/mailrisk-pg" };

/** The data folder's owner when the server runs on this machine and this process runs as root; undefined otherwise. */
function serverUserHere(dataDirectory: string): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0 || !existsSync("/dev/shm")) return undefined;
  try {
    const { uid, gid } = statSync(dataDirectory);
    return { uid, gid };
  } catch {
    return undefined;
  }
}

async function drop(client: pg.Client, name: string): Promise<void> {
  const { rows } = await client.query<{ datname: string }>(
    `select datname from pg_database d join pg_tablespace t on d.dattablespace = t.oid where t.spcname = $1`,
    [name],
  );
  for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  await client.query(`DROP TABLESPACE ${name}`);
}

/** The tablespace's name, made if need be, or undefined for the server's default. `client` is the admin connection. */
export async function testTablespace(
  client: pg.Client,
  { name, folder }: TablespacePlace = PLACE,
): Promise<string | undefined> {
  if (process.env.TEST_POSTGRES_TABLESPACE === "off") return undefined;
  await client.query("select pg_advisory_lock(hashtext($1))", [name]);
  try {
    const { rows } = await client.query<{ location: string; data: string }>(
      `select (select pg_tablespace_location(oid) from pg_tablespace where spcname = $1) as location,
              current_setting('data_directory') as data`,
      [name],
    );
    const { location, data } = rows[0] as { location: string | null; data: string };
    const user = serverUserHere(data);
    if (location !== null) {
      if (existsSync(location)) return name;
      if (user === undefined) return undefined;
      await drop(client, name);
    }
    if (user === undefined) return undefined;
    mkdirSync(folder, { recursive: true });
    chmodSync(folder, 0o700);
    chownSync(folder, user.uid, user.gid);
    await client.query(`CREATE TABLESPACE ${name} LOCATION '${folder}'`);
    return name;
  } catch {
    // Whatever failed (a server that refuses, a folder that cannot be made): the default tablespace.
    return undefined;
  } finally {
    await client.query("select pg_advisory_unlock(hashtext($1))", [name]);
  }
}
