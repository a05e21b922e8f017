/**
 * Imported first by every benchmark that checks, in its own process or through the
 * services and CLIs it starts: the worlds it checks put their mail hosts in the
 * documentation ranges (harness/domain-mix.ts, harness/mail-zones.ts), so TEST_NAMES is
 * on, as in the tests (src/core/test-names.ts): applied here, and in the environment
 * the child processes inherit.
 */
import { allowTestNames } from "../src/core/test-names.js";

process.env.TEST_NAMES = "on";
allowTestNames(true);
