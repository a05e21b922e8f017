/**
 * `mailrisk demo` asks the service at `--service` at start whether it takes the key from
 * the demo's origin: a key the service does not know, or one that does not list the
 * origin, stops it with exit 1 and the refusal's code; a service that does not answer
 * yet is said, and the demo starts all the same.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCli } from "../../harness/cli-context.js";
import { type LiveService, openLiveService } from "../../harness/live-service.js";
import { run } from "../../src/cli/demo-command.js";
import { checkDemoKey } from "../../src/demo/demo-server.js";

const ORIGIN = "http://127.0.0.1:8099";
let service: LiveService;
let url: string;
let listing: string;
let other: string;

beforeAll(async () => {
  service = await openLiveService({ dnsAddress: "127.0.0.1:9", clock: () => new Date(), dnsTimeoutMs: 300 });
  await service.app.listen({ port: 0, host: "127.0.0.1" });
  url = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}/`;
  const key = (origins: string[]) =>
    service.store.keys.createKey({ plan: "tests", now: new Date(), publishable: true, origins });
  listing = (await key([ORIGIN])).secret;
  other = (await key(["https://shop.example"])).secret;
}, 30_000);

afterAll(() => service?.close());

async function demo(key: string) {
  const cli = createTestCli("sqlite::memory:");
  const code = await run(["--key", key, "--port", "8099", "--service", url], cli.ctx);
  return { code, stderr: cli.stderr() };
}

describe("mailrisk demo at start", () => {
  it("takes a key that lists the demo's origin", async () => {
    expect(await checkDemoKey(url, listing, ORIGIN)).toEqual({ ok: true });
  });

  it("stops with exit 1 on a key the service does not know", async () => {
    const { code, stderr } = await demo("mrp_notAKeyOfThisService0123456789");
    expect(code).toBe(1);
    expect(stderr).toContain(`the service at ${url} refuses the key from ${ORIGIN}: invalid_api_key`);
  });

  it("stops with exit 1 on a key that does not list the demo's origin, saying how to add it", async () => {
    const { code, stderr } = await demo(other);
    expect(code).toBe(1);
    expect(stderr).toContain("origin_not_allowed");
    expect(stderr).toContain(`mailrisk keys set-origins <id> ${ORIGIN}`);
  });

  it("says when the service does not answer", async () => {
    const closed = createServer().listen(0, "127.0.0.1");
    await once(closed, "listening");
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const check = await checkDemoKey(`http://127.0.0.1:${port}/`, listing, ORIGIN);
    expect(check).toMatchObject({ ok: false, answered: false });
    expect(check.ok ? "" : check.message).toContain("does not answer (ECONNREFUSED)");
  });
});
