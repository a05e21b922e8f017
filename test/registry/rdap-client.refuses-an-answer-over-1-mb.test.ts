/** An RDAP answer is a few kilobytes; one over 1 MB is a failure, never held in memory whole. */
import { afterEach, expect, it } from "vitest";
import { type LoopbackRdap, startRdapServer } from "../../harness/loopback-registries.js";
import { fetchRdapRegistration } from "../../src/registry/rdap-client.js";

const servers: LoopbackRdap[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

it("fails on an answer over 1 MB and still reads one just under it", async () => {
  const padding = (bytes: number) => JSON.stringify({ events: [], notes: "x".repeat(bytes) });
  const huge = await startRdapServer(() => ({ status: 200, body: padding(1_100_000) }));
  const large = await startRdapServer(() => ({ status: 200, body: padding(900_000) }));
  servers.push(huge, large);

  expect(await fetchRdapRegistration(huge.baseUrl, "example.com", AbortSignal.timeout(5000))).toEqual({
    kind: "failed",
    reason: "RDAP: RDAP answer is over 1 MB",
  });
  expect(await fetchRdapRegistration(large.baseUrl, "example.com", AbortSignal.timeout(5000))).toEqual({
    kind: "no-date",
  });
});
