/**
 * vitest's set-up file: a test process applies TEST_NAMES of its environment (on in
 * vitest.config.ts) as a server or the CLI does at start, so fixtures under `.test` and
 * MX addresses in the documentation ranges are checked like public ones.
 */
import { loadConfig } from "../src/config.js";
import { allowTestNames } from "../src/core/test-names.js";

allowTestNames(loadConfig().testNames);
