/** `/admin/overrides` (docs/api.md "Administration"): set, list and remove; refuse actions a kind does not take; purge nothing. */
import type { InjectOptions } from "fastify";
import { afterEach, beforeEach, expect, it } from "vitest";
import { mxFacts } from "../../harness/sample-facts.js";
import { type HttpFixture, openHttpFixture, START } from "./helpers.js";

const TOKEN = "a".repeat(40);
let fixture: HttpFixture;
beforeEach(async () => {
  fixture = await openHttpFixture({ adminToken: TOKEN });
});
afterEach(() => fixture.close());

const admin = (options: InjectOptions, token = TOKEN) =>
  fixture.app.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${token}` } });

it("sets, lists and removes overrides, normalising domains and keeping the stored facts", async () => {
  await fixture.store.records.saveFacts("shop.example", mxFacts("shop.example"), START, false);
  const set = await admin({
    method: "POST",
    url: "/admin/overrides",
    payload: { kind: "domain", value: "Shop.Example.", action: "deny", note: "chargebacks" },
  });
  expect(set.statusCode).toBe(201);
  expect(set.json()).toMatchObject({
    kind: "domain",
    value: "shop.example",
    action: "deny",
    note: "chargebacks",
  });
  // Verdicts are decided when answering: the facts stay, the next answer takes the override.
  expect(await fixture.store.records.getFacts("shop.example")).toBeDefined();
  await admin({
    method: "POST",
    url: "/admin/overrides",
    payload: { kind: "mx_host", value: "MX.Host.Example", action: "never_disposable" },
  });
  const listed = (await admin({ method: "GET", url: "/admin/overrides" })).json();
  expect(listed.map((o: { kind: string; value: string }) => `${o.kind} ${o.value}`)).toEqual([
    "domain shop.example",
    "mx_host mx.host.example",
  ]);
  const removed = await admin({
    method: "POST",
    url: "/admin/overrides/remove",
    payload: { kind: "domain", value: "shop.example" },
  });
  expect(removed.json()).toEqual({ removed: true });
  const again = await admin({
    method: "POST",
    url: "/admin/overrides/remove",
    payload: { kind: "domain", value: "shop.example" },
  });
  expect(again.json()).toEqual({ removed: false });
});

it("refuses an action the kind does not take, a bad domain and a missing token", async () => {
  for (const payload of [
    { kind: "domain", value: "shop.example", action: "never_disposable" },
    { kind: "ns", value: "ns1.example", action: "deny" },
    { kind: "domain", value: "not a domain", action: "allow" },
    { kind: "asn", value: "1", action: "allow" },
  ]) {
    const response = await admin({ method: "POST", url: "/admin/overrides", payload });
    expect(response.statusCode, JSON.stringify(payload)).toBe(400);
    expect(response.headers["content-type"]).toContain("application/problem+json");
  }
  expect((await admin({ method: "GET", url: "/admin/overrides" }, "b".repeat(40))).statusCode).toBe(401);
  expect(await fixture.store.overrides.listOverrides()).toEqual([]);
});
