import { afterEach, beforeEach, expect, it } from "vitest";
import { sampleRecord } from "../../harness/sample-record.js";
import { FULL_FIELDS, SIMPLE_FIELDS } from "../../src/core/record.js";
import { fakeChecker, type HttpFixture, openHttpFixture } from "./helpers.js";

let fixture: HttpFixture;
let secret: string;
beforeEach(async () => {
  // A record whose own key order is scrambled: the schema, not the object, fixes the wire order.
  const scrambled = Object.fromEntries(Object.entries(sampleRecord()).reverse()) as ReturnType<
    typeof sampleRecord
  >;
  fixture = await openHttpFixture({ checker: fakeChecker(() => ({ record: scrambled, cache: "miss" })) });
  secret = (await fixture.newKey()).secret;
});
afterEach(() => fixture.close());

it("serialises the full record in docs/api.md §4's order", async () => {
  const response = await fixture.app.inject({
    method: "POST",
    url: "/v2/",
    headers: { authorization: `Bearer ${secret}` },
    payload: { domain: "example.com" },
  });
  expect(Object.keys(response.json())).toEqual(FULL_FIELDS);
  expect(response.json()).toEqual(sampleRecord());
});

it("serialises the simple record in docs/api.md §4's order", async () => {
  const response = await fixture.app.inject({
    url: "/?email=a@example.com",
    headers: { "x-gateway-key": secret },
  });
  expect(Object.keys(response.json())).toEqual(SIMPLE_FIELDS);
  expect(response.json().last_changed_at).toBe(sampleRecord().block_status_changed_at);
  expect(response.json().disposable).toBe(false);
});

it("keeps nulls and empty values of the full record", async () => {
  fixture.checker.check = async () => ({
    record: sampleRecord({
      domain_age_days: null,
      domain_created_at: null,
      disposable_provider: null,
      mx_priorities: {},
    }),
    status: "ok",
    cache: "hit",
  });
  const response = await fixture.app.inject({
    method: "POST",
    url: "/v2/",
    headers: { authorization: `Bearer ${secret}` },
    payload: { domain: "example.com" },
  });
  expect(response.json()).toMatchObject({
    domain_age_days: null,
    domain_created_at: null,
    disposable_provider: null,
    mx_priorities: {},
  });
});
