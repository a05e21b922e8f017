/**
 * SIGTERM under load, as users run the service (`mailrisk serve --workers 1` in a child
 * process, DNS over the wire to a loopback server, a real database; issue #14): with
 * many requests in flight, every request that gets an answer gets 200 or 503
 * `shutting_down`, the process exits 0, and the usage row equals the 200 answers exactly
 * (no counted request lost, none counted twice).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../../harness/databases.js";
import { type DnsTestServer, startDnsServer } from "../../harness/dns-server.js";
import { mailZones } from "../../harness/mail-zones.js";
import { startServiceWorld } from "../../harness/service-world.js";
import { openStore } from "../../src/store/index.js";

const REQUESTS = 120;
/** Distinct domains, so that requests do real DNS work (cache misses) while the signal arrives. */
const DOMAINS = Array.from({ length: REQUESTS }, (_, index) => `shop-${index}.example-mail.com`);

let dns: DnsTestServer;
beforeAll(async () => {
  dns = await startDnsServer(mailZones(["gmail.com", ...DOMAINS], "own-server"));
});
afterAll(() => dns.close());

type Outcome = { status: number; code?: string } | { error: string };

async function send(url: string, secret: string, index: number): Promise<Outcome> {
  const domain = DOMAINS[index] as string;
  try {
    const response =
      index % 2 === 0
        ? await fetch(`${url}/?domain=${domain}`, { headers: { "x-gateway-key": secret } })
        : await fetch(`${url}/v2/`, {
            method: "POST",
            headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
            body: JSON.stringify({ email: `someone@${domain}` }),
          });
    const body = await response.text();
    if (response.status === 200) return { status: 200 };
    return { status: response.status, code: (JSON.parse(body) as { code?: string }).code };
  } catch (error) {
    // No answer: refused once the port closed, or the connection closed before a request was sent.
    return { error: String((error as Error).cause ?? error) };
  }
}

describe.each(DATABASE_KINDS)("on %s", (kind) => {
  it("answers every request it took with 200 or 503 shutting_down, exits 0 and counts exactly the 200s", async () => {
    let secret = "";
    let keyId = "";
    const world = await startServiceWorld({
      dns,
      database: kind,
      // The key before the service starts.
      prepare: async (database) => {
        const store = await openStore(database.location);
        try {
          await store.migrate();
          await store.plans.createPlan({ name: "big", quota: 100_000, periodDays: 30 });
          ({
            secret,
            key: { id: keyId },
          } = await store.keys.createKey({ plan: "big", now: new Date() }));
        } finally {
          await store.close();
        }
      },
    });
    const { service, database } = world;
    try {
      let exitCode: number | string | null;
      const outcomes: Outcome[] = [];
      try {
        let answered = 0;
        const requests = Array.from({ length: REQUESTS }, (_, index) =>
          send(service.url, secret, index).then((outcome) => {
            answered++;
            outcomes.push(outcome);
          }),
        );
        // The signal arrives once some have been answered, with most still in flight.
        while (answered < 20) await new Promise((resolve) => setTimeout(resolve, 5));
        // In-flight requests end with `Connection: close`; clients' keep-alive connections
        // must not hold the exit (Fastify's keepAliveTimeout is 72 s).
        exitCode = await Promise.race([
          service.stop(),
          new Promise<string>((resolve) =>
            setTimeout(() => resolve("still running 10 s after SIGTERM"), 10_000),
          ),
        ]);
        await Promise.all(requests);
      } finally {
        await service.stop();
      }
      expect(exitCode, service.output()).toBe(0);

      const answers = outcomes.filter(
        (outcome): outcome is { status: number; code?: string } => "status" in outcome,
      );
      const unexpected = answers.filter(
        (answer) => answer.status !== 200 && !(answer.status === 503 && answer.code === "shutting_down"),
      );
      expect(unexpected).toEqual([]);
      const ok = answers.filter((answer) => answer.status === 200).length;
      expect(ok).toBeGreaterThanOrEqual(20);

      const after = await openStore(database.location);
      try {
        expect((await after.usage.keyUsage(keyId, new Date()))?.current.used).toBe(ok);
      } finally {
        await after.close();
      }
    } finally {
      await world.stop();
    }
  }, 60_000);
});
