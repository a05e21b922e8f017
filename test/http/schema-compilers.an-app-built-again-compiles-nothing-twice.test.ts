/**
 * The schema compilers are the process's (src/http/schema-compilers.ts): a schema an app
 * compiled is found compiled by the next app, the same serializer and validator, and a
 * schema made anew is compiled anew. What they compile is Fastify's own.
 */
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { sharedSchemaCompilers } from "../../src/http/schema-compilers.js";

const { buildSerializer, buildValidator } = sharedSchemaCompilers.compilersFactory;
const RECORD = {
  type: "object",
  properties: { domain: { type: "string" }, risk: { type: "integer" } },
  required: ["domain"],
};

describe("shared schema compilers", () => {
  it("give the next app the serializer and validator the first one compiled", () => {
    const route = { schema: RECORD, method: "GET", url: "/", httpStatus: "200" };
    const first = buildSerializer({}, {})(route);
    const again = buildSerializer({}, {})(route);
    expect(again).toBe(first);
    expect(first({ domain: "example.com", risk: 7, extra: true })).toBe('{"domain":"example.com","risk":7}');

    const options = { customOptions: { coerceTypes: false } };
    const validate = buildValidator(
      {},
      options,
    )({ schema: RECORD, method: "POST", url: "/", httpPart: "body" });
    const validateAgain = buildValidator(
      {},
      options,
    )({ schema: RECORD, method: "POST", url: "/", httpPart: "body" });
    expect(validateAgain).toBe(validate);
  });

  it("compile a schema made anew, and one with other shared schemas, anew", () => {
    const route = { schema: RECORD, method: "GET", url: "/", httpStatus: "200" };
    const first = buildSerializer({}, {})(route);
    expect(buildSerializer({}, {})({ ...route, schema: structuredClone(RECORD) })).not.toBe(first);
    expect(buildSerializer({ other: { $id: "other", type: "string" } }, {})(route)).not.toBe(first);
  });

  it("answer as Fastify's own do, in two apps one after the other", async () => {
    for (let i = 0; i < 2; i++) {
      const app = Fastify({ schemaController: sharedSchemaCompilers });
      app.post("/", { schema: { body: RECORD, response: { 200: RECORD } } }, async (request) => ({
        ...(request.body as object),
        risk: 3,
        dropped: "never sent",
      }));
      const ok = await app.inject({ method: "POST", url: "/", payload: { domain: "example.org" } });
      expect(ok.body).toBe('{"domain":"example.org","risk":3}');
      const bad = await app.inject({ method: "POST", url: "/", payload: { risk: 1 } });
      expect(bad.statusCode).toBe(400);
      await app.close();
    }
  });
});
