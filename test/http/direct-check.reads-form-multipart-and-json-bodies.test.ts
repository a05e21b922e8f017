import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HttpFixture, openHttpFixture } from "./helpers.js";

let fixture: HttpFixture;
let secret: string;
beforeEach(async () => {
  fixture = await openHttpFixture();
  secret = (await fixture.newKey()).secret;
});
afterEach(() => fixture.close());

function multipart(fields: [string, string][], file?: string): { body: string; contentType: string } {
  const boundary = "----mailrisk-test-boundary";
  const parts = fields.map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  if (file) {
    parts.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n${file}\r\n`,
    );
  }
  return {
    body: `${parts.join("")}--${boundary}--\r\n`,
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

const post = (contentType: string | undefined, payload: string | undefined, auth = `Bearer ${secret}`) =>
  fixture.app.inject({
    method: "POST",
    url: "/v2/",
    headers: { authorization: auth, ...(contentType ? { "content-type": contentType } : {}) },
    ...(payload === undefined ? {} : { payload }),
  });

describe("POST /v2/ bodies", () => {
  it("reads `domain` from a form, a multipart form and JSON", async () => {
    const form = multipart([["domain", "Multipart.Example"]]);
    for (const [contentType, payload, domain] of [
      ["application/x-www-form-urlencoded", "domain=Form.Example", "form.example"],
      [form.contentType, form.body, "multipart.example"],
      ["application/json", '{"domain":"Json.Example."}', "json.example"],
      ["application/json; charset=utf-8", '{"domain":"münchen.de"}', "xn--mnchen-3ya.de"],
    ] as const) {
      const response = await post(contentType, payload);
      expect(response.statusCode, contentType).toBe(200);
      expect(response.json().domain).toBe(domain);
    }
  });

  it("reads `email` and lets a non-empty email win over domain", async () => {
    const response = await post(
      "application/x-www-form-urlencoded",
      "domain=other.example&email=Info@Mail.Example",
    );
    expect(response.statusCode).toBe(200);
    expect(response.json().domain).toBe("mail.example");
    expect(fixture.checker.calls.at(-1)).toEqual({
      kind: "email",
      domain: "mail.example",
      localPart: "Info",
    });
    const emptyEmail = await post(
      "application/json",
      JSON.stringify({ email: " ", domain: "other.example" }),
    );
    expect(emptyEmail.json().domain).toBe("other.example");
  });

  it("accepts the key base64-encoded and the scheme in any case", async () => {
    const encoded = Buffer.from(secret).toString("base64");
    expect((await post("application/json", '{"domain":"a.example"}', `Bearer ${encoded}`)).statusCode).toBe(
      200,
    );
    expect((await post("application/json", '{"domain":"a.example"}', `bearer ${secret}`)).statusCode).toBe(
      200,
    );
    const basic = await post("application/json", '{"domain":"a.example"}', `Basic ${encoded}`);
    expect(basic.statusCode).toBe(401);
    expect(basic.json().code).toBe("wrong_auth_scheme");
  });

  it("answers 400 with the parser's code for missing or bad input", async () => {
    for (const [contentType, payload, code] of [
      [undefined, undefined, "missing_input"],
      ["application/x-www-form-urlencoded", "", "missing_input"],
      ["application/json", "{}", "missing_input"],
      ["application/json", '{"domain":""}', "missing_input"],
      ["application/json", JSON.stringify({ domain: `${"a".repeat(321)}.com` }), "input_too_long"],
      ["application/json", '{"domain":"1.2.3.4"}', "invalid_domain"],
      ["application/json", '{"email":"no-at-sign.example"}', "invalid_email"],
      ["application/json", '{"domain":["a.example","b.example"]}', "invalid_domain"],
      // Strict types: a number, a boolean or a one-item array is not turned into text.
      ["application/json", '{"domain":42}', "invalid_domain"],
      ["application/json", '{"email":true}', "invalid_email"],
      ["application/json", '{"domain":["a.example"]}', "invalid_domain"],
      ["application/json", '{"domain":null}', "invalid_domain"],
      ["application/json", '{"email":{"nested":true}}', "invalid_email"],
      ["application/json", '["a.example"]', "invalid_body"],
      ["application/json", "null", "invalid_body"],
      ["application/x-www-form-urlencoded", "domain=a.example&domain=b.example", "invalid_domain"],
    ] as const) {
      const response = await post(contentType, payload);
      expect(response.statusCode, `${contentType} ${payload}`).toBe(400);
      expect(response.json().code, `${contentType} ${payload}`).toBe(code);
    }
  });

  it("refuses files and malformed multipart bodies with 400 invalid_body", async () => {
    const withFile = multipart([["domain", "a.example"]], "hello");
    const broken = multipart([["domain", "a.example"]]);
    for (const [contentType, payload] of [
      [withFile.contentType, withFile.body],
      [broken.contentType, broken.body.slice(0, 40)],
      ["multipart/form-data", broken.body],
    ] as const) {
      const response = await post(contentType, payload);
      expect(response.statusCode, payload).toBe(400);
      expect(response.json().code).toBe("invalid_body");
    }
  });

  it("refuses a multipart body over 16 KiB with 413 and ignores fields other than the input", async () => {
    const big = multipart([["domain", "x".repeat(17 * 1024)]]);
    const tooLarge = await post(big.contentType, big.body);
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.json().code).toBe("body_too_large");
    const extra = multipart([
      ...Array.from({ length: 20 }, (_, i) => [`f${i}`, "v"] as [string, string]),
      ["__proto__", "x"],
      ["domain", "a.example"],
    ]);
    const response = await post(extra.contentType, extra.body);
    expect(response.statusCode).toBe(200);
    expect(response.json().domain).toBe("a.example");
  });
});
