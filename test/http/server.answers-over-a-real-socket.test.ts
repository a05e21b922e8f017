import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleRecord } from "../../harness/sample-record.js";
import { FULL_FIELDS, SIMPLE_FIELDS } from "../../src/core/record.js";
import { fakeChecker, type HttpFixture, openHttpFixture } from "./helpers.js";

let fixture: HttpFixture;
let base: string;
let secret: string;
let release: () => void = () => {};
const slow = { on: false };

beforeAll(async () => {
  const checker = fakeChecker(async (input) => {
    if (slow.on) await new Promise<void>((resolve) => (release = resolve));
    return { record: sampleRecord({ domain: input.domain, base_domain: input.domain }), cache: "hit" };
  });
  fixture = await openHttpFixture({ checker, metricsRoute: { token: null } });
  secret = (await fixture.newKey({ quota: 1000 })).secret;
  base = await fixture.app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(() => fixture.close());

const bearer = () => ({ authorization: `Bearer ${secret}` });

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are checked field by field
const json = async (response: Response): Promise<any> => response.json();

/** Raw HTTP/1.1 exchange, for requests fetch refuses to send. */
function rawExchange(text: string): Promise<string> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1", () => socket.end(text));
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}

describe("over a listening socket", () => {
  it("answers GET / with the simple record and its headers", async () => {
    const response = await fetch(`${base}/?email=someone%40example.com`, {
      headers: { "x-gateway-key": secret },
    });
    expect(response.status).toBe(200);
    expect(Object.keys(await json(response))).toEqual(SIMPLE_FIELDS);
    expect(response.headers.get("x-ratelimit-requests-limit")).toBe("1000");
    expect(response.headers.get("x-ratelimit-requests-remaining")).toMatch(/^\d+$/);
    expect(response.headers.get("x-ratelimit-requests-reset")).toMatch(/^\d+$/);
  });

  it("answers POST /v2/ and /v2 with a form, multipart and JSON body", async () => {
    const form = new FormData();
    form.set("domain", "multipart.example");
    for (const [path, body, headers, domain] of [
      ["/v2/", new URLSearchParams({ domain: "form.example" }), {}, "form.example"],
      ["/v2", form, {}, "multipart.example"],
      [
        "/v2/",
        JSON.stringify({ email: "a@json.example" }),
        { "content-type": "application/json" },
        "json.example",
      ],
    ] as const) {
      const response = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { ...bearer(), ...headers },
        body,
      });
      expect(response.status, domain).toBe(200);
      const record = await json(response);
      expect(Object.keys(record)).toEqual(FULL_FIELDS);
      expect(record.domain).toBe(domain);
    }
  });

  it("answers the ops routes", async () => {
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: "ok" });
    expect((await json(await fetch(`${base}/openapi.json`))).openapi).toBe("3.1.0");
    expect(await (await fetch(`${base}/metrics`)).text()).toContain("mailrisk_http_requests_total");
    const wrong = await fetch(`${base}/v2/`, { method: "PUT", headers: bearer() });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
  });

  it("refuses a streamed body over 16 KiB without Content-Length with 413, JSON or multipart", async () => {
    const encoder = new TextEncoder();
    const filler = `${"x".repeat(1023)},`;
    for (const [contentType, head, tail] of [
      ["application/json", '{"domain":"', '"}'],
      [
        "multipart/form-data; boundary=b",
        '--b\r\nContent-Disposition: form-data; name="domain"\r\n\r\n',
        "\r\n--b--\r\n",
      ],
    ] as const) {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(head));
          for (let i = 0; i < 20; i++) controller.enqueue(encoder.encode(filler));
          controller.enqueue(encoder.encode(tail));
          controller.close();
        },
      });
      const response = await fetch(`${base}/v2/`, {
        method: "POST",
        headers: { ...bearer(), "content-type": contentType },
        body,
        duplex: "half",
      } as RequestInit);
      expect(response.status, contentType).toBe(413);
      expect((await json(response)).code).toBe("body_too_large");
    }
  });

  it("answers huge headers at the HTTP layer, and keeps serving", async () => {
    const answer = await rawExchange(
      `GET /?domain=example.com HTTP/1.1\r\nHost: x\r\nX-Gateway-Key: ${"k".repeat(64 * 1024)}\r\nConnection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    const garbage = await rawExchange("\x00\x01\x02 not http at all\r\n\r\n");
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it("answers a binary body with a problem, not a crash", async () => {
    const response = await fetch(`${base}/v2/`, {
      method: "POST",
      headers: { ...bearer(), "content-type": "application/json" },
      body: new Uint8Array([0xff, 0xfe, 0x00, 0x7b, 0x80]),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  });

  it("lets an in-flight request finish when the server closes", async () => {
    slow.on = true;
    const inFlight = new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        `${base}/?domain=slow.example`,
        { headers: { "x-gateway-key": secret, connection: "close" } },
        (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode ?? 0));
        },
      );
      request.on("error", reject);
      request.end();
    });
    while (fixture.checker.calls.at(-1)?.domain !== "slow.example")
      await new Promise((r) => setTimeout(r, 5));
    const closed = fixture.app.close();
    await new Promise((r) => setTimeout(r, 50));
    release();
    expect(await inFlight).toBe(200);
    await closed;
  });
});
