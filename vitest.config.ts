import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "clients/typescript/test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    // No test fetches the public upstream lists: a test that syncs names loopback sources.
    // TEST_NAMES: the fixtures' `.test` names and documentation MX addresses count as public
    // in the services and CLIs tests start (in-process set-ups: harness/config.ts).
    env: { LIST_SOURCES: "off", TEST_NAMES: "on" },
  },
});
