import { afterEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../../harness/databases.js";
import { type HttpFixture, openHttpFixture } from "./helpers.js";

describe.each(DATABASE_KINDS)("on %s", (kind) => {
  let fixture: HttpFixture | undefined;
  afterEach(() => fixture?.close());

  it("answers 90 parallel requests on a quota of 50 with exactly 50 × 200 and 40 × 429", async () => {
    fixture = await openHttpFixture({ kind });
    const { secret } = await fixture.newKey({ quota: 50 });
    const base = await fixture.app.listen({ host: "127.0.0.1", port: 0 });
    const responses = await Promise.all(
      Array.from({ length: 90 }, (_, i) =>
        i % 2 === 0
          ? fetch(`${base}/v2/`, {
              method: "POST",
              headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
              body: JSON.stringify({ domain: "example.com" }),
            })
          : fetch(`${base}/?email=someone@example.com`, { headers: { "x-gateway-key": secret } }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(50);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40);
    const remaining = responses
      .filter((response) => response.status === 200)
      .map((response) => Number(response.headers.get("x-ratelimit-requests-remaining")))
      .sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 50 }, (_, i) => i));
    for (const response of responses) await response.arrayBuffer();
  });
});
