/**
 * `POST /v2/bulk` requests in progress at once are bounded: per key (429
 * `too_many_concurrent_requests`) and per instance (503 `server_busy`), both with
 * Retry-After and counting no quota; a slot is free again once its request is answered,
 * also when the request failed. The gate comes before the body: a request whose body is
 * still on its way holds a slot, and a client that goes away, mid-body or mid-check, lets
 * its slot go. Over a real socket, with checks held until the test lets them go.
 *
 * @room apart: a client that goes away while its checks run, seen within a few milliseconds (test/projects.ts).
 */
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { afterEach, expect, it } from "vitest";
import { sampleRecord } from "../../harness/sample-record.js";
import { fakeChecker, type HttpFixture, openHttpFixture } from "./helpers.js";

let fixture: HttpFixture | undefined;
afterEach(async () => {
  // The client's spare keep-alive connections would hold the close for its 4 s keep-alive.
  fixture?.app.server.closeAllConnections();
  await fixture?.close();
});

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
  fixture = await openHttpFixture({
    checker: held.checker,
    bulkConcurrentPerKey: bulkConcurrency.perKey,
    bulkConcurrentTotal: bulkConcurrency.total,
  });
  const base = await fixture.app.listen({ host: "127.0.0.1", port: 0 });
  const post = (secret: string, type: string, body: string, signal?: AbortSignal) =>
    fetch(`${base}/v2/bulk`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": type },
      body,
      ...(signal ? { signal } : {}),
    });
  const bulk = (secret: string, items = ["a.com", "b.com"], signal?: AbortSignal) =>
    post(secret, "application/json", JSON.stringify({ items }), signal);
  /** A request whose headers and first bytes of body are sent, the rest never: its body is still on its way. */
  const slowBody = async (secret: string): Promise<Socket> => {
    const body = JSON.stringify({ items: ["a.com", "b.com"] });
    const socket = connect({ host: "127.0.0.1", port: Number(new URL(base).port) });
    await once(socket, "connect");
    socket.on("error", () => undefined);
    socket.write(
      `POST /v2/bulk HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${secret}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    return socket;
  };
  return { fixture, held, bulk, slowBody, post };
}

/** Items that are no domain: answered without a check, so without waiting for the held checker. */
const UNCHECKED = ["not a domain"];

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

it("holds a slot from before the body is read: two bodies on their way make a third request 429, until one client goes away", async () => {
  const { fixture, bulk, slowBody } = await open({ perKey: 2, total: 8 });
  const { secret } = await fixture.newKey({ quota: 100 });
  const slow = [await slowBody(secret), await slowBody(secret)];
  await settle();
  const third = await bulk(secret, UNCHECKED);
  expect(third.status).toBe(429);
  expect(third.headers.get("retry-after")).toBe("2");
  expect(((await third.json()) as { code: string }).code).toBe("too_many_concurrent_requests");
  // The client of one body in flight disconnects: its slot is let go.
  slow[0]?.destroy();
  await settle();
  const next = await bulk(secret, UNCHECKED);
  expect(next.status).toBe(200);
  expect(((await next.json()) as { results: { code: string }[] }).results[0]?.code).toBe("invalid_domain");
  slow[1]?.destroy();
  await settle();
  expect((await bulk(secret, UNCHECKED)).status).toBe(200);
  expect((await fixture.store.usage.authorize(secret, fixture.clock.now(), 0))?.quota.used).toBe(2);
});

it("refuses with 503 server_busy before reading the body once the instance's slots hold bodies on their way", async () => {
  const { fixture, bulk, slowBody } = await open({ perKey: 2, total: 2 });
  const keys = [await fixture.newKey(), await fixture.newKey(), await fixture.newKey()];
  const slow = [await slowBody(keys[0]?.secret as string), await slowBody(keys[1]?.secret as string)];
  await settle();
  const busy = await bulk(keys[2]?.secret as string, UNCHECKED);
  expect(busy.status).toBe(503);
  expect(((await busy.json()) as { code: string }).code).toBe("server_busy");
  for (const socket of slow) socket.destroy();
  await settle();
  expect((await bulk(keys[2]?.secret as string, UNCHECKED)).status).toBe(200);
});

it("lets the slot of a request go when its client goes away while its checks run, and starts no more of its checks", async () => {
  const { fixture, held, bulk } = await open({ perKey: 2, total: 8 });
  const { secret } = await fixture.newKey({ quota: 1000 });
  const items = Array.from({ length: 300 }, (_, i) => `d${i}.com`);
  const aborts = [new AbortController(), new AbortController()];
  const running = aborts.map((abort) => bulk(secret, items, abort.signal).catch(() => "aborted"));
  await settle();
  expect(fixture.checker.calls.length).toBeGreaterThan(0);
  expect((await bulk(secret, UNCHECKED)).status).toBe(429);
  aborts[0]?.abort();
  await settle();
  expect((await bulk(secret, UNCHECKED)).status).toBe(200);
  aborts[1]?.abort();
  await settle();
  expect((await bulk(secret, UNCHECKED)).status).toBe(200);
  expect(await Promise.all(running)).toEqual(["aborted", "aborted"]);
  held.release();
  await settle();
  // Each checked what it held when its client went (twice its 32 checks), not its 300 items.
  expect(fixture.checker.calls.length).toBeLessThan(items.length);
});

it("lets the slot go after a body refused with 415, 400 or 413", async () => {
  const { fixture, bulk, post } = await open({ perKey: 1, total: 1 });
  const { secret } = await fixture.newKey({ quota: 100 });
  for (let i = 0; i < 3; i++) {
    expect((await post(secret, "text/plain", "a.com")).status).toBe(415);
    expect((await post(secret, "application/json", '{"items":')).status).toBe(400);
    expect(
      (await post(secret, "application/json", JSON.stringify({ items: Array(1001).fill("a.com") }))).status,
    ).toBe(413);
    expect((await post(secret, "application/json", "x".repeat(400_000))).status).toBe(413);
  }
  expect((await bulk(secret, UNCHECKED)).status).toBe(200);
  expect((await fixture.store.usage.authorize(secret, fixture.clock.now(), 0))?.quota.used).toBe(1);
});
