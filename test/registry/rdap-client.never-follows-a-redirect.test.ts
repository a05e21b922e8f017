/**
 * The service contacts only the registry hosts the RDAP bootstrap names: a registry that
 * answers with a redirect (to any address, here another loopback server) is not
 * followed; the answer is a failure, so WHOIS is asked instead.
 */
import { afterEach, expect, it } from "vitest";
import { type LoopbackRdap, startRdapServer } from "../../harness/loopback-registries.js";
import { fetchRdapRegistration } from "../../src/registry/rdap-client.js";

const servers: LoopbackRdap[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

it.each([301, 302, 307, 308])("does not follow a %i to another host", async (status) => {
  const elsewhere = await startRdapServer(() => ({ status: 200, body: '{"events":[]}' }));
  const registry = await startRdapServer((domain) => ({
    status,
    headers: { location: `${elsewhere.baseUrl}domain/${domain}` },
  }));
  servers.push(elsewhere, registry);

  const answer = await fetchRdapRegistration(registry.baseUrl, "example.com", AbortSignal.timeout(5000));

  expect(answer).toEqual({ kind: "failed", reason: `RDAP answered HTTP ${status}` });
  expect(registry.queries).toEqual(["example.com"]);
  expect(elsewhere.queries).toEqual([]);
});
