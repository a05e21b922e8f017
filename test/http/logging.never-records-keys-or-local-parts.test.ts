import { afterEach, expect, it } from "vitest";
import { sampleRecord } from "../../harness/sample-record.js";
import { capturedLogger, fakeChecker, type HttpFixture, openHttpFixture } from "./helpers.js";

let fixture: HttpFixture;
afterEach(() => fixture.close());

it("logs requests with path, status, domain and key id, never keys, headers or email local parts", async () => {
  const { lines, logger } = capturedLogger();
  let fail = false;
  const checker = fakeChecker((input) => {
    if (fail) throw new Error("lookup broke");
    return { record: sampleRecord({ domain: input.domain }), cache: "miss" };
  });
  fixture = await openHttpFixture({ logger, checker, accessLog: "all" });
  const { id, secret } = await fixture.newKey();
  const encoded = Buffer.from(secret).toString("base64");

  await fixture.app.inject({
    url: "/?email=secret.person%40example.com",
    headers: { "x-gateway-key": secret },
  });
  await fixture.app.inject({
    method: "POST",
    url: "/v2/",
    headers: { authorization: `Bearer ${encoded}` },
    payload: { email: "hidden.local@example.org" },
  });
  await fixture.app.inject({
    url: "/?email=secret.person@example.com",
    headers: { "x-gateway-key": "wrong-key" },
  });
  await fixture.app.inject({ url: "/not.a.route/another.person@example.net" });
  fail = true;
  await fixture.app.inject({
    method: "POST",
    url: "/v2",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/x-www-form-urlencoded" },
    payload: "email=third.person%40example.com",
  });

  const text = lines.join("\n");
  expect(lines.length).toBeGreaterThan(5);
  for (const forbidden of [
    secret,
    encoded,
    "wrong-key",
    "secret.person",
    "hidden.local",
    "another.person",
    "third.person",
  ]) {
    expect(text).not.toContain(forbidden);
  }
  expect(text.toLowerCase()).not.toMatch(/authorization|x-gateway-key/);
  const completed = lines
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.msg === "request completed");
  expect(completed.map((entry) => entry.res)).toEqual(
    expect.arrayContaining([
      { statusCode: 200, domain: "example.com", keyId: id },
      { statusCode: 200, domain: "example.org", keyId: id },
      { statusCode: 401 },
    ]),
  );
  expect(lines.some((line) => line.includes('"url":"/"'))).toBe(true);
});
