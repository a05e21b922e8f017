import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    // No test fetches the public upstream lists: a test that syncs names loopback sources.
    env: { LIST_SOURCES: "off" },
  },
});
