/**
 * TEST_NAMES travels with the configuration an app is built from (docs/security.md,
 * "Public names only"): two apps in one process, one with it on and one off, each judge
 * `.test` names by their own setting, on the checking routes, bulk and the result page.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpFixture, openHttpFixture } from "./helpers.js";

let on: HttpFixture;
let off: HttpFixture;

beforeAll(async () => {
  [on, off] = await Promise.all([
    openHttpFixture({ testNames: true }),
    openHttpFixture({ testNames: false }),
  ]);
});
afterAll(() => Promise.all([on?.close(), off?.close()]));

async function answers(fixture: HttpFixture) {
  const { secret } = await fixture.newKey();
  const bearer = { authorization: `Bearer ${secret}` };
  const direct = await fixture.app.inject({
    method: "POST",
    url: "/v2/",
    headers: bearer,
    payload: { email: "jane@shop.test" },
  });
  const bulk = await fixture.app.inject({
    method: "POST",
    url: "/v2/bulk",
    headers: bearer,
    payload: { items: ["shop.test"] },
  });
  const page = await fixture.app.inject({ url: "/domain/shop.test", headers: { accept: "text/html" } });
  return { direct: direct.statusCode, bulk: bulk.json().results[0].code ?? "checked", page: page.statusCode };
}

describe("one process, two settings", () => {
  it("the app with TEST_NAMES on checks .test names", async () => {
    expect(await answers(on)).toEqual({ direct: 200, bulk: "checked", page: 200 });
    expect(on.checker.calls.map((input) => input.domain)).toContain("shop.test");
  });

  it("the app with TEST_NAMES off refuses them before any check", async () => {
    expect(await answers(off)).toEqual({ direct: 400, bulk: "invalid_domain", page: 400 });
    expect(off.checker.calls).toEqual([]);
  });
});
