/**
 * Imported first by every benchmark that checks, in its own process or through the
 * services and CLIs it starts: the worlds it checks put their mail hosts in the
 * documentation ranges (harness/domain-mix.ts, harness/mail-zones.ts), so TEST_NAMES is
 * on, as in the tests: in the environment the configuration and child processes read.
 */
process.env.TEST_NAMES = "on";
