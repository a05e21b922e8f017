/**
 * A checked batch's outcomes stored deflated (src/store/packed-results.ts, docs/jobs.md
 * "Writes"): `packed` holds them; `results` is then '' (null while the batch is pending,
 * as before). Batches written before this keep their text in `results` and read as they did.
 */
import { type Kysely, PostgresAdapter } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  const binary = db.getExecutor().adapter instanceof PostgresAdapter ? "bytea" : "blob";
  await db.schema.alterTable("job_batches").addColumn("packed", binary).execute();
}
