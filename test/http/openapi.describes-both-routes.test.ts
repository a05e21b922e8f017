import { afterAll, beforeAll, expect, it } from "vitest";
import { FULL_FIELDS, SIMPLE_FIELDS } from "../../src/core/record.js";
import { type HttpFixture, openHttpFixture } from "./helpers.js";

let fixture: HttpFixture;
// biome-ignore lint/suspicious/noExplicitAny: a parsed JSON document walked by the assertions
let doc: any;
beforeAll(async () => {
  fixture = await openHttpFixture();
  const response = await fixture.app.inject({ url: "/openapi.json" });
  expect(response.statusCode).toBe(200);
  doc = response.json();
});
afterAll(() => fixture.close());

const RATE_LIMIT = [
  "x-ratelimit-requests-remaining",
  "x-ratelimit-requests-limit",
  "x-ratelimit-requests-reset",
];

it("is an OpenAPI 3.1 document with both checking routes", () => {
  expect(doc.openapi).toBe("3.1.0");
  expect(doc.info).toMatchObject({ title: "mailrisk" });
  expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/", "/v2/"]));
  expect(Object.keys(doc.paths["/"])).toEqual(["get"]);
  expect(Object.keys(doc.paths["/v2/"])).toEqual(["post"]);
  expect(doc.components.securitySchemes).toMatchObject({
    gatewayKey: { type: "apiKey", in: "header", name: "X-Gateway-Key" },
    bearerKey: { type: "http", scheme: "bearer" },
  });
});

it("lists every status with its body and the rate-limit headers (a 401 only remaining 0, none on a 403, which counts nothing)", () => {
  const get = doc.paths["/"].get;
  const post = doc.paths["/v2/"].post;
  expect(Object.keys(get.responses)).toEqual(["200", "400", "401", "403", "429", "500", "503"]);
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
  for (const [operation, success] of [
    [get, SIMPLE_FIELDS],
    [post, FULL_FIELDS],
  ] as const) {
    // The record, and its evidence last: only with explain=true.
    const properties = operation.responses["200"].content["application/json"].schema.properties;
    expect(Object.keys(properties)).toEqual([...success, "evidence"]);
    expect(operation.responses["200"].content["application/json"].schema.required).not.toContain("evidence");
    for (const [status, response] of Object.entries<{ headers: object; content: object }>(
      operation.responses,
    )) {
      if (status === "401") {
        expect(Object.keys(response.headers), status).toContain(RATE_LIMIT[0]);
        for (const name of RATE_LIMIT.slice(1))
          expect(Object.keys(response.headers), status).not.toContain(name);
      } else if (status === "403") {
        for (const name of RATE_LIMIT) expect(Object.keys(response.headers), status).not.toContain(name);
      } else expect(Object.keys(response.headers), status).toEqual(expect.arrayContaining(RATE_LIMIT));
      if (status !== "200") expect(Object.keys(response.content)).toEqual(["application/problem+json"]);
    }
    expect(Object.keys(operation.responses["429"].headers)).toContain("retry-after");
    expect(Object.keys(operation.responses["503"].headers)).toContain("retry-after");
  }
  expect(Object.keys(post.responses["401"].headers)).toContain("www-authenticate");
});

it("describes the inputs of both routes", () => {
  const parameters = doc.paths["/"].get.parameters.map(
    (p: { in: string; name: string }) => `${p.in}:${p.name}`,
  );
  expect(parameters).toEqual(["query:email", "query:domain", "query:explain"]);
  expect(doc.paths["/"].get.security).toEqual([{ gatewayKey: [] }]);
  const body = doc.paths["/v2/"].post.requestBody.content;
  expect(Object.keys(body)).toEqual([
    "application/x-www-form-urlencoded",
    "multipart/form-data",
    "application/json",
  ]);
  expect(Object.keys(body["application/json"].schema.properties)).toEqual(["email", "domain", "explain"]);
  expect(doc.paths["/v2/"].post.security).toEqual([{ bearerKey: [] }]);
});

it("leaves the 405 stand-ins, /metrics and itself out", () => {
  for (const path of ["/metrics", "/openapi.json"]) expect(doc.paths[path]).toBeUndefined();
  expect(doc.paths["/v2/"].get).toBeUndefined();
});
