/**
 * The admin API against its worst visitors (docs/security.md, "Admin lock-out" and
 * "Strict admin bodies"): the 11th wrong token in a minute from one address is answered
 * 429 with Retry-After, for that address only and even with the right token; refused
 * requests are logged in samples, not one line each; a body of the wrong types, with an
 * unknown field or an address that is none is refused 400, and purges nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mxFacts } from "../../harness/sample-facts.js";
import { capturedLogger, type HttpFixture, openHttpFixture } from "./helpers.js";

const TOKEN = "a-long-enough-admin-token-0123456789";
const WRONG = "a-long-enough-admin-token-wrong-guess";

let fixture: HttpFixture;
const captured = capturedLogger();

beforeAll(async () => {
  fixture = await openHttpFixture({ adminToken: TOKEN, logger: captured.logger });
});
afterAll(() => fixture.close());

const admin = (remoteAddress: string, token: string, url = "/admin/plans", payload?: unknown) =>
  fixture.app.inject({
    method: payload === undefined ? "GET" : "POST",
    url,
    remoteAddress,
    headers: { authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

describe("wrong admin tokens", () => {
  it("lock an address out after 10 in a minute: the 11th gets 429 with Retry-After, the right token too", async () => {
    const guesser = "127.0.0.2";
    for (let i = 0; i < 10; i++) expect((await admin(guesser, WRONG)).statusCode).toBe(401);
    const locked = await admin(guesser, WRONG);
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers["retry-after"])).toBeGreaterThan(50);
    expect(Number(locked.headers["retry-after"])).toBeLessThanOrEqual(60);
    expect(locked.json()).toMatchObject({ code: "rate_limited" });
    expect((await admin(guesser, TOKEN)).statusCode).toBe(429);
    // Another address is served as before.
    expect((await admin("127.0.0.3", TOKEN)).statusCode).toBe(200);
    expect((await admin("127.0.0.4", WRONG)).statusCode).toBe(401);
  });

  it("count an IPv6 client by its /64: rotating addresses inside it is still one guesser", async () => {
    for (let i = 0; i < 10; i++) expect((await admin(`2001:db8:1:2::${i + 1}`, WRONG)).statusCode).toBe(401);
    expect((await admin("2001:db8:1:2:ffff::9", WRONG)).statusCode).toBe(429);
    expect((await admin("2001:db8:1:3::1", TOKEN)).statusCode).toBe(200);
    // Its refusals were logged in samples too: one line for the whole /64.
    const about = captured.lines
      .map((line) => JSON.parse(line))
      .filter((line) => String(line.req?.remoteAddress ?? "").startsWith("2001:db8:1:2:"));
    expect(about).toHaveLength(1);
  });

  it("are logged in samples: one line for a burst from an address, not two per guess", async () => {
    const guesser = "127.0.0.5";
    const before = captured.lines.length;
    for (let i = 0; i < 12; i++) await admin(guesser, WRONG);
    const lines = captured.lines.slice(before).map((line) => JSON.parse(line));
    const about = lines.filter((line) => line.req?.remoteAddress === guesser);
    expect(about).toHaveLength(1);
    expect(about[0]).toMatchObject({ res: { statusCode: 401 } });
    expect(lines.some((line) => line.msg === "incoming request")).toBe(false);
    // An accepted admin request is one line.
    const served = captured.lines.length;
    await admin("127.0.0.6", TOKEN);
    expect(captured.lines.slice(served).map((line) => JSON.parse(line).msg)).toEqual(["request completed"]);
  });
});

describe("admin bodies are strict", () => {
  const ADDRESS = "127.0.0.9";

  it('{"all":"true"} is 400 and purges nothing', async () => {
    await fixture.store.records.saveFacts("kept.com", mxFacts("kept.com"), fixture.clock.now(), false);
    const response = await admin(ADDRESS, TOKEN, "/admin/records/purge", { all: "true" });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code: "invalid_body" });
    expect(await fixture.store.records.getFacts("kept.com")).toBeDefined();
  });

  it.each([
    ["an unknown field", "/admin/records/purge", { all: true, everything: true }],
    ["a number as text", "/admin/plans", { name: "loose", quota: "5" }],
    ["an unknown field on a plan", "/admin/plans", { name: "loose", quota: 5, admin: true }],
    [
      "an address that is none",
      "/admin/overrides",
      { kind: "mx_ip", value: "999.1.1.1", action: "never_disposable" },
    ],
    [
      "an address with a port",
      "/admin/overrides",
      { kind: "mx_ip", value: "192.0.2.1:25", action: "never_disposable" },
    ],
  ])("%s is 400 invalid_body", async (_what, url, payload) => {
    const response = await admin(ADDRESS, TOKEN, url, payload);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code: "invalid_body" });
  });

  it("a valid address is taken, IPv6 too", async () => {
    for (const value of ["192.0.2.1", "2001:DB8::1"]) {
      const response = await admin(ADDRESS, TOKEN, "/admin/overrides", {
        kind: "mx_ip",
        value,
        action: "never_disposable",
      });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json()).toMatchObject({ value: value.toLowerCase() });
    }
  });
});
