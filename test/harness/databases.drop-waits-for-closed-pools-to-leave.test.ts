/**
 * A test database is dropped once the connections to it have left (within 2 s): closing a
 * PostgreSQL pool ends its connections without waiting for them, and a drop that forced
 * them out would make each report "terminating connection due to administrator command"
 * as a store idle error, a process warning on the test run's stderr.
 */
import pg from "pg";
import { expect, it } from "vitest";
import { createTestDatabase } from "../../harness/databases.js";

it("waits for a connection that is leaving instead of cutting it off", async () => {
  const database = await createTestDatabase("postgres");
  const client = new pg.Client({ connectionString: database.url });
  const errors: string[] = [];
  client.on("error", (error) => errors.push(error.message));
  await client.connect();
  const dropped = database.drop();
  await new Promise((resolve) => setTimeout(resolve, 200));
  await client.end();
  await dropped;
  expect(errors).toEqual([]);
});
