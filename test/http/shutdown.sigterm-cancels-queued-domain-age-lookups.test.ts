/**
 * SIGTERM does not wait for domain-age look-ups (issue #28): with many look-ups queued
 * and running against a loopback RDAP server and a WHOIS server that never answer, and
 * AGE_TIMEOUT_MS at its most (60 s), `mailrisk serve` exits 0 within a few seconds of
 * the signal. Every check was already answered (a check waits 200 ms for the age); what
 * the shutdown aborts is the work that would only have saved a late age. The few seconds
 * (5 s) are a quiet machine's bound, stretched by the machine's pace (harness/machine-pace.ts).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createKeyIn } from "../../harness/databases.js";
import {
  type LoopbackRdap,
  type LoopbackWhois,
  startRdapServer,
  startWhoisServer,
  writeBootstrap,
} from "../../harness/loopback-registries.js";
import { startPace } from "../../harness/machine-pace.js";
import { mailZones } from "../../harness/mail-zones.js";
import { requestOnNewConnection } from "../../harness/service-process.js";
import { startServiceWorld } from "../../harness/service-world.js";
import { CANARY_DOMAINS } from "../../src/service/checking/create-checker.js";

const CHECKS = 100;
const DOMAINS = Array.from({ length: CHECKS }, (_, index) => `aged-shop-${index}.com`);
/** RDAP queries in flight per registry (registry-domain-age-lookup.ts): the rest wait in its queue. */
const RDAP_IN_FLIGHT = 4;

let rdap: LoopbackRdap;
let whois: LoopbackWhois;
let bootstrap: string;
beforeAll(async () => {
  rdap = await startRdapServer(() => ({ status: 200, body: "{}", delayMs: 10 * 60_000 }));
  whois = await startWhoisServer(() => null);
  bootstrap = await writeBootstrap({ com: rdap.baseUrl });
});
afterAll(async () => {
  await Promise.all([rdap.close(), whois.close()]);
});

it("exits within a few seconds of SIGTERM while age look-ups that never end are queued and running", async () => {
  const world = await startServiceWorld({
    zones: mailZones([...CANARY_DOMAINS, ...DOMAINS], "own-server"),
    env: {
      // Domain ages looked up, with the default DNS deadline.
      AGE_LOOKUP: undefined,
      DNS_TIMEOUT_MS: undefined,
      RDAP_BOOTSTRAP_FILE: bootstrap,
      WHOIS_SERVER: whois.address,
      AGE_TIMEOUT_MS: "60000",
    },
  });
  const { service } = world;
  try {
    const secret = await createKeyIn(world.database.location, "many", 100_000);
    const answers = await Promise.all(
      DOMAINS.map((domain) =>
        requestOnNewConnection(`${service.url}/v2/`, {
          method: "POST",
          headers: { authorization: `Bearer ${secret}` },
          body: { domain },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(DOMAINS.map(() => 200));
    // Answered without their age: the registries hold RDAP_IN_FLIGHT queries, the rest wait.
    expect(answers.every((answer) => JSON.parse(answer.text).domain_age_days === null)).toBe(true);
    expect(rdap.queries.length).toBe(RDAP_IN_FLIGHT);

    const pace = startPace();
    const signalled = performance.now();
    const code = await service.stop();
    const exitMs = performance.now() - signalled;
    expect(code).toBe(0);
    expect(exitMs).toBeLessThan(pace.bound(5000));
    console.log(`exited ${exitMs.toFixed(0)} ms after SIGTERM with ${CHECKS} age look-ups under way`);
  } finally {
    await world.stop();
  }
}, 90_000);
