/** `/openapi.json` describes the list job routes with their schemas, statuses and the rate-limit headers. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type HttpFixture, openHttpFixture } from "../http/helpers.js";

let fixture: HttpFixture;
// biome-ignore lint/suspicious/noExplicitAny: a parsed JSON document walked by the assertions
let doc: any;
beforeAll(async () => {
  fixture = await openHttpFixture();
  doc = (await fixture.app.inject({ url: "/openapi.json" })).json();
});
afterAll(() => fixture.close());

it("has every job route, tagged jobs, behind a bearer key", () => {
  expect(Object.keys(doc.paths["/v2/jobs"]).sort()).toEqual(["get", "post"]);
  expect(Object.keys(doc.paths["/v2/jobs/{id}"]).sort()).toEqual(["delete", "get"]);
  expect(Object.keys(doc.paths["/v2/jobs/{id}/results"])).toEqual(["get"]);
  for (const path of ["/v2/jobs", "/v2/jobs/{id}", "/v2/jobs/{id}/results"]) {
    for (const operation of Object.values(doc.paths[path]) as { tags: string[]; security: unknown }[]) {
      expect(operation.tags).toEqual(["jobs"]);
      expect(operation.security).toEqual([{ bearerKey: [] }]);
    }
  }
});

it("describes the upload, the job's shape and the results' statuses", () => {
  const post = doc.paths["/v2/jobs"].post;
  expect(Object.keys(post.requestBody?.content ?? {})).toEqual(
    expect.arrayContaining(["text/csv", "text/plain", "multipart/form-data"]),
  );
  expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(["202", "400", "413", "415", "429"]));
  expect(post.responses["202"].headers).toHaveProperty("x-ratelimit-requests-remaining");
  expect(post.responses["202"].headers).toHaveProperty("location");
  expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(["503"]));
  const job = doc.paths["/v2/jobs/{id}"].get.responses["200"].content["application/json"].schema;
  expect(Object.keys(job.properties)).toEqual([
    "id",
    "status",
    "items",
    "done",
    "counts",
    "filename",
    "created_at",
    "started_at",
    "finished_at",
    "expires_at",
  ]);
  const results = doc.paths["/v2/jobs/{id}/results"].get;
  expect(Object.keys(results.responses)).toEqual(expect.arrayContaining(["200", "400", "404", "409", "429"]));
  expect(results.responses["400"].description).toMatch(
    /`format` \(csv, jsonl\), `only` \(allow, block, all\)/,
  );
  const parameters = results.parameters.map((parameter: { name: string }) => parameter.name);
  expect(parameters).toEqual(expect.arrayContaining(["format", "only", "raw"]));
  expect(Object.keys(results.responses["200"].content)).toEqual(["text/csv", "application/jsonl"]);
});
