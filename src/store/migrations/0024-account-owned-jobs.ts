/**
 * A list job uploaded in the console belongs to the account itself (docs/jobs.md "In the
 * console"): it is filed under no key, so `jobs.key_id` may be null; its owner
 * (`account:<id>`) says whose it is. PostgreSQL drops the constraint in place; SQLite
 * cannot, so the table is rebuilt with the same columns and indexes.
 */
import { type Kysely, sql } from "kysely";

/** The columns of `jobs` as migrations 0016, 0018, 0021 and 0022 left them, in order. */
const COLUMNS = sql.raw(
  [
    "id",
    "key_id",
    "status",
    "items",
    "done",
    "allow_count",
    "block_count",
    "invalid_count",
    "unknown_count",
    "period_start",
    "header",
    "layout",
    "created_at",
    "started_at",
    "finished_at",
    "expires_at",
    "served_at",
    "owner",
    "filename",
    "failing_since",
  ].join(", "),
);

export async function up(db: Kysely<unknown>): Promise<void> {
  // PostgreSQL is the adapter with transactional DDL (src/store/migrate.ts).
  if (db.getExecutor().adapter.supportsTransactionalDdl) {
    await sql`alter table jobs alter column key_id drop not null`.execute(db);
    return;
  }
  await db.schema
    .createTable("jobs_rebuilt")
    .addColumn("id", "text", (col) => col.primaryKey())
    /** The key the job was uploaded with; null for an account's own (the console's). */
    .addColumn("key_id", "text")
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("items", "integer", (col) => col.notNull())
    .addColumn("done", "integer", (col) => col.notNull())
    .addColumn("allow_count", "integer", (col) => col.notNull())
    .addColumn("block_count", "integer", (col) => col.notNull())
    .addColumn("invalid_count", "integer", (col) => col.notNull())
    .addColumn("unknown_count", "integer", (col) => col.notNull())
    .addColumn("period_start", "bigint", (col) => col.notNull())
    .addColumn("header", "text", (col) => col.notNull())
    .addColumn("layout", "text", (col) => col.notNull())
    .addColumn("created_at", "bigint", (col) => col.notNull())
    .addColumn("started_at", "bigint")
    .addColumn("finished_at", "bigint")
    .addColumn("expires_at", "bigint")
    .addColumn("served_at", "bigint", (col) => col.notNull())
    .addColumn("owner", "text", (col) => col.notNull().defaultTo(""))
    .addColumn("filename", "text")
    .addColumn("failing_since", "bigint")
    .execute();
  await sql`insert into jobs_rebuilt (${COLUMNS}) select ${COLUMNS} from jobs`.execute(db);
  await db.schema.dropTable("jobs").execute();
  await db.schema.alterTable("jobs_rebuilt").renameTo("jobs").execute();
  await db.schema.createIndex("jobs_by_key").on("jobs").columns(["key_id", "created_at"]).execute();
  await db.schema.createIndex("jobs_by_owner").on("jobs").columns(["owner", "served_at"]).execute();
}
