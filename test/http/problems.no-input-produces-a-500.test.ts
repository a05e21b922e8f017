import type { InjectOptions } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type HttpFixture, openHttpFixture } from "./helpers.js";

let fixture: HttpFixture;
let secret: string;
beforeAll(async () => {
  fixture = await openHttpFixture();
  secret = (await fixture.newKey({ quota: 1_000_000 })).secret;
});
afterAll(() => fixture.close());

/** Deterministic pseudo-random bytes (xorshift), so a failure reproduces. */
function bytes(seed: number, length: number): Buffer {
  let x = seed || 1;
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const nested = (depth: number) => `${'{"domain":'.repeat(depth)}"a.example"${"}".repeat(depth)}`;
const nestedArray = (depth: number) => `{"domain":${"[".repeat(depth)}${"]".repeat(depth)}}`;

function direct(
  contentType: string | undefined,
  payload: string | Buffer,
  auth = `Bearer ${secret}`,
): InjectOptions {
  return {
    method: "POST",
    url: "/v2/",
    headers: { authorization: auth, ...(contentType ? { "content-type": contentType } : {}) },
    payload,
  };
}

function gateway(url: string, key = secret): InjectOptions {
  return { method: "GET", url, headers: { "x-gateway-key": key } };
}

function weirdRequests(): InjectOptions[] {
  const cases: InjectOptions[] = [
    // keys: huge, binary, odd schemes
    gateway("/?domain=example.com", "k".repeat(100_000)),
    gateway("/?domain=example.com", "\u00ff\u00fe"),
    direct("application/json", '{"domain":"a.example"}', `Bearer ${"k".repeat(100_000)}`),
    direct("application/json", '{"domain":"a.example"}', "Bearer"),
    direct("application/json", '{"domain":"a.example"}', "Bearer a b"),
    direct(
      "application/json",
      '{"domain":"a.example"}',
      `Bearer ${Buffer.from([0xff, 0x00, 0x41]).toString("base64")}`,
    ),
    // queries
    gateway("/?email=a&email=b"),
    gateway("/?email[]=a@example.com"),
    gateway("/?email[x]=a@example.com"),
    gateway("/?domain=%ff%fe%fd"),
    gateway("/?domain=%"),
    gateway(`/?domain=${"a.".repeat(5000)}com`),
    gateway(
      `/?email=${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}.${"e".repeat(57)}`,
    ),
    gateway("/?email=%22quoted%20local%22@example.com"),
    gateway("/?email=@"),
    gateway("/?email=a@[127.0.0.1]"),
    gateway("/?domain=xn--zz.example"),
    gateway("/?domain=%E2%80%AE.example"),
    gateway("/?domain=..."),
    gateway("/?__proto__=x&constructor=y"),
    // URLs
    { method: "GET", url: "/%zz" },
    { method: "GET", url: `/${"a".repeat(10_000)}` },
    { method: "GET", url: "/v2/%00" },
    { method: "TRACE", url: "/v2/" },
    // bodies
    direct("application/json", nested(1000)),
    direct("application/json", nestedArray(5000)),
    direct("application/json", '{"domain":12345}'),
    direct("application/json", '{"domain":true,"email":null}'),
    direct("application/json", '{"domain":1e400}'),
    direct("application/json", '"a.example"'),
    direct("application/json", "123"),
    direct("application/json", '{"constructor":{"prototype":{"x":1}}}'),
    direct("application/json", Buffer.from([0x7b, 0x22, 0x64, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
    direct("application/x-www-form-urlencoded", "domain[]=a.example&domain[x]=b"),
    direct("application/x-www-form-urlencoded", "domain=%ff%fe"),
    direct("application/x-www-form-urlencoded", "&&&===&"),
    direct("application/x-www-form-urlencoded", "__proto__=a.example"),
    direct(
      "multipart/form-data; boundary=x",
      '--x\r\nContent-Disposition: form-data; name="__proto__"\r\n\r\nv\r\n--x--\r\n',
    ),
    direct(
      "multipart/form-data; boundary=x",
      '--x\r\nContent-Disposition: form-data; name="domain"\r\nContent-Type: application/json\r\n\r\n{"a":\r\n--x--\r\n',
    ),
    direct("multipart/form-data; boundary=x", "--x\r\nno headers at all\r\n--x--"),
    direct("application/json; charset=latin1", '{"domain":"a.example"}'),
    direct("application/json; charset=utf-16", '{"domain":"a.example"}'),
    direct("application/json;;;", '{"domain":"a.example"}'),
    direct("invalid content type", "x"),
  ];
  const contentTypes = [
    "application/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=b",
  ];
  for (let seed = 1; seed <= 12; seed++) {
    for (const contentType of contentTypes) cases.push(direct(contentType, bytes(seed, 64 * seed)));
  }
  return cases;
}

it("answers every weird input with a status below 500 and a problem body on errors", async () => {
  for (const options of weirdRequests()) {
    const response = await fixture.app.inject(options);
    const label = `${options.method} ${String(options.url).slice(0, 60)} ${String(options.payload ?? "").slice(0, 60)}`;
    expect(response.statusCode, label).toBeLessThan(500);
    if (response.statusCode >= 400 && options.method !== "HEAD") {
      expect(response.headers["content-type"], label).toMatch(/^application\/problem\+json/);
      expect(response.json().status, label).toBe(response.statusCode);
    }
  }
});
