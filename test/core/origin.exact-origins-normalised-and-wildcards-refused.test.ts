import { describe, expect, it } from "vitest";
import { parseOrigin } from "../../src/core/origin.js";

describe("parseOrigin", () => {
  it.each([
    ["https://shop.example", "https://shop.example"],
    ["HTTPS://Shop.EXAMPLE", "https://shop.example"],
    ["https://shop.example/", "https://shop.example"],
    ["  https://shop.example  ", "https://shop.example"],
    ["https://shop.example:443", "https://shop.example"],
    ["http://shop.example:80", "http://shop.example"],
    ["https://shop.example:8443", "https://shop.example:8443"],
    ["http://127.0.0.2:3000", "http://127.0.0.2:3000"],
    ["http://[::1]:8080", "http://[::1]:8080"],
    ["https://bücher.example", "https://xn--bcher-kva.example"],
  ])("%s is the origin %s", (text, origin) => {
    expect(parseOrigin(text)).toEqual({ ok: true, origin });
  });

  it.each([
    ["*", /wildcard/],
    ["https://*.shop.example", /wildcard/],
    ["https://shop.example/signup", /without a path/],
    ["https://shop.example/?a=1", /without a path, query or fragment/],
    ["https://shop.example#top", /without a path, query or fragment/],
    ["shop.example", /scheme:\/\/host/],
    ["", /scheme:\/\/host/],
    ["null", /scheme:\/\/host/],
    ["ftp://shop.example", /http or https/],
    ["file://host", /http or https/],
    ["https://user:pw@shop.example", /user name or password/],
    ["https://shop.example:99999", /not a valid URL origin/],
    [`https://${"a".repeat(300)}.example`, /longer than 300/],
  ])("%j is refused", (text, reason) => {
    const parsed = parseOrigin(text);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.reason).toMatch(reason);
  });
});
