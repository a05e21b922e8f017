/**
 * Publishable keys (docs/security.md, "Publishable keys"): a key may be publishable,
 * bound to the web origins it may be used from. Secret keys keep 0 and no origins.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  /** 1: a publishable (`mrp_`) key, usable only on the checking routes from its origins. */
  await db.schema
    .alterTable("api_keys")
    .addColumn("publishable", "integer", (col) => col.notNull().defaultTo(0))
    .execute();
  /** A JSON array of normalised origins (`https://shop.example`); null for a secret key. */
  await db.schema.alterTable("api_keys").addColumn("origins", "text").execute();
}
