import { afterAll, beforeAll, expect, it } from "vitest";
import { FULL_FIELDS } from "../../src/core/record.js";
import { type HttpFixture, openHttpFixture } from "./helpers.js";

let fixture: HttpFixture;
// biome-ignore lint/suspicious/noExplicitAny: a parsed JSON document walked by the assertions
let bulk: any;
beforeAll(async () => {
  fixture = await openHttpFixture();
  bulk = (await fixture.app.inject({ url: "/openapi.json" })).json().paths["/v2/bulk"];
});
afterAll(() => fixture.close());

it("describes POST /v2/bulk: JSON items in, results out, with examples", () => {
  expect(Object.keys(bulk)).toEqual(["post"]);
  const { post } = bulk;
  expect(post.security).toEqual([{ bearerKey: [] }]);
  const body = post.requestBody.content;
  expect(Object.keys(body)).toEqual(["application/json"]);
  expect(body["application/json"].schema.properties.items).toMatchObject({
    type: "array",
    minItems: 1,
    maxItems: 1000,
    items: { type: "string" },
  });
  expect(body["application/json"].example.items.length).toBeGreaterThan(1);
  expect(Object.keys(post.responses)).toEqual([
    "200",
    "400",
    "401",
    "403",
    "413",
    "415",
    "429",
    "500",
    "503",
  ]);
  for (const [status, response] of Object.entries<{ headers: object }>(post.responses)) {
    // A 403 counts nothing: no quota to tell (a 401 says 0 left).
    if (status === "403")
      expect(Object.keys(response.headers)).not.toContain("x-ratelimit-requests-remaining");
    else expect(Object.keys(response.headers)).toContain("x-ratelimit-requests-remaining");
  }
  const ok = post.responses["200"].content["application/json"];
  const [record, problem] = ok.schema.properties.results.items.anyOf;
  expect(Object.keys(record.properties)).toEqual(["input", ...FULL_FIELDS, "evidence"]);
  expect(Object.keys(problem.properties)).toEqual(["input", "type", "title", "status", "detail", "code"]);
  const example = ok.example;
  expect(example.results.map((result: { input: string }) => result.input)).toEqual(
    body["application/json"].example.items,
  );
});
