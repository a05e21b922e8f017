import { describe, expect, it } from "vitest";
import { fixture } from "../../harness/loopback-registries.js";
import { rdapDomainUrl, registrationAnswer, retryAfterMs } from "../../src/registry/rdap-client.js";

describe("rdapDomainUrl", () => {
  it.each([
    ["https://rdap.example.test/", "https://rdap.example.test/domain/example.com"],
    ["https://rdap.example.test/rdap", "https://rdap.example.test/rdap/domain/example.com"],
    ["https://rdap.example.test/com/v1/", "https://rdap.example.test/com/v1/domain/example.com"],
  ])("joins %s and the domain path", (base, url) => {
    expect(rdapDomainUrl(base, "example.com")).toBe(url);
  });
});

describe("registrationAnswer", () => {
  it("takes the registration event's date", () => {
    expect(registrationAnswer(JSON.parse(fixture("rdap/registered.json")))).toEqual({
      kind: "registered",
      createdAt: new Date("1995-08-14T04:00:00Z"),
    });
  });

  it.each([
    ["no registration event", JSON.parse(fixture("rdap/no-registration-event.json"))],
    ["no events", { objectClassName: "domain" }],
    ["events that are no array", { events: "registration" }],
    ["a registration date that is no date", { events: [{ eventAction: "registration", eventDate: "soon" }] }],
    ["a registration without a date", { events: [{ eventAction: "registration" }, null] }],
  ])("has no date for %s", (_, body) => {
    expect(registrationAnswer(body)).toEqual({ kind: "no-date" });
  });

  it.each([[null], [[]], ["text"], [42]])("fails for a body that is no object: %j", (body) => {
    expect(registrationAnswer(body).kind).toBe("failed");
  });
});

describe("retryAfterMs", () => {
  const now = new Date("2026-11-22T12:00:00Z");
  it.each([
    ["120", 120_000],
    [" 5 ", 5_000],
    ["0", 1_000],
    ["999999", 3_600_000],
    ["Sun, 22 Nov 2026 12:02:00 GMT", 120_000],
    ["Sun, 22 Nov 2026 11:00:00 GMT", 1_000],
    ["soon", 60_000],
    [null, 60_000],
  ])("waits after Retry-After %j for %i ms", (header, ms) => {
    expect(retryAfterMs(header, now, 60_000)).toBe(ms);
  });
});
