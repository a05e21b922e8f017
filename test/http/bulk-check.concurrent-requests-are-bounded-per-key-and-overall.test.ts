/**
 * `POST /v2/bulk` requests in progress at once are bounded: per key (429
 * `too_many_concurrent_requests`) and per instance (503 `server_busy`), both with
 * Retry-After and counting no quota; a slot is free again once its request is answered,
 * also when the request failed. Over a real socket, with checks held until the test lets
 * them go.
 */
import { afterEach, expect, it } from "vitest";
import { sampleRecord } from "../../harness/sample-record.js";
import { fakeChecker, type HttpFixture, openHttpFixture } from "./helpers.js";

let fixture: HttpFixture | undefined;
afterEach(() => fixture?.close());

/** A checker whose answers wait until `release()`. */
function heldChecker() {
  let release: () => void = () => undefined;
  let held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const checker = fakeChecker(async (input) => {
    await held;
    return { record: sampleRecord({ domain: input.domain, base_domain: input.domain }), cache: "miss" };
  });
  return {
    checker,
    release: () => {
      release();
      held = Promise.resolve();
    },
  };
}

async function open(bulkConcurrency: { perKey: number; total: number }) {
  const held = heldChecker();
  fixture = await openHttpFixture({ checker: held.checker, bulkConcurrency });
  const base = await fixture.app.listen({ host: "127.0.0.1", port: 0 });
  const bulk = (secret: string, items = ["a.com", "b.com"]) =>
    fetch(`${base}/v2/bulk`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ items }),
    });
  return { fixture, held, bulk };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

it("answers 429 to a key's third request in progress, counting nothing, and takes it again once one is answered", async () => {
  const { fixture, held, bulk } = await open({ perKey: 2, total: 8 });
  const { secret } = await fixture.newKey({ quota: 100 });
  const running = [bulk(secret), bulk(secret)];
  await settle();
  const third = await bulk(secret);
  expect(third.status).toBe(429);
  expect(third.headers.get("retry-after")).toBe("2");
  expect(((await third.json()) as { code: string }).code).toBe("too_many_concurrent_requests");
  expect(third.headers.get("x-ratelimit-requests-remaining")).toBe("96");
  // Another key is not this key's limit.
  const other = await fixture.newKey({ quota: 100 });
  const others = bulk(other.secret);
  await settle();
  held.release();
  expect((await Promise.all([...running, others])).map((response) => response.status)).toEqual([
    200, 200, 200,
  ]);
  const again = await bulk(secret);
  expect(again.status).toBe(200);
  expect(((await again.json()) as { results: unknown[] }).results).toHaveLength(2);
  expect((await fixture.store.usage.authorize(secret, fixture.clock.now(), 0))?.quota.used).toBe(6);
});

it("answers 503 server_busy once the instance has its total in progress, and frees a slot after a refused body", async () => {
  const { fixture, held, bulk } = await open({ perKey: 2, total: 3 });
  const keys: { secret: string }[] = [];
  for (let i = 0; i < 4; i++) keys.push(await fixture.newKey({ quota: 100 }));
  const running = keys.slice(0, 3).map(({ secret }) => bulk(secret));
  await settle();
  const busy = await bulk(keys[3]?.secret as string);
  expect(busy.status).toBe(503);
  expect(busy.headers.get("retry-after")).toBe("2");
  expect(((await busy.json()) as { code: string }).code).toBe("server_busy");
  expect(
    (await fixture.store.usage.authorize(keys[3]?.secret as string, fixture.clock.now(), 0))?.quota.used,
  ).toBe(0);
  held.release();
  await Promise.all(running);
  // Over the quota (429 quota_exceeded after admission): the slot is let go all the same.
  const poor = await fixture.newKey({ quota: 1 });
  for (let i = 0; i < 5; i++) expect((await bulk(poor.secret)).status).toBe(429);
  expect((await bulk(keys[3]?.secret as string)).status).toBe(200);
});
