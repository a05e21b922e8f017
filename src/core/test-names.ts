/**
 * TEST_NAMES (docs/security.md, "Public names only"): whether this process takes the
 * names and MX addresses set aside for testing and documentation (`.test`, `.example`,
 * 192.0.2.0/24 …) as public ones. It is the whole process's setting, made once at start
 * from the configuration (`runServer`, `runCli`; vitest's set-up file for tests run in
 * its own processes), so the parser and the verdict read the same answer; default off.
 */

let allowed = false;

/** Sets TEST_NAMES for this process (at start, from the configuration). */
export function allowTestNames(on: boolean): void {
  allowed = on;
}

/** Whether this process takes test and documentation names and addresses as public. */
export function testNamesAllowed(): boolean {
  return allowed;
}
