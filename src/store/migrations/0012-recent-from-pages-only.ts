/**
 * The recently checked list shows only what the pages checked (RECENT_FROM_API, default
 * off; docs/security.md, "Privacy of the recently checked list"). Rows written before
 * then may name domains a keyed caller checked through the API, so they are all dropped
 * once; the pages fill the list again as visitors check domains.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await (db as Kysely<{ recent: { domain: string } }>).deleteFrom("recent").execute();
}
