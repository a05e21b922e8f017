/**
 * A publishable key against `mailrisk serve` as users run it, PUBLISHABLE_RATE_LIMIT=2:
 * real sockets from three loopback client addresses (127.0.0.2, .3, .4), a preflight and
 * checks sent as a browser page of the key's origin sends them, real DNS over the wire
 * to a loopback server; SQLite.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mailZones } from "../harness/mail-zones.js";
import { type ServiceWorld, startServiceWorld } from "../harness/service-world.js";
import { openStore } from "../src/store/index.js";

const DOMAIN = "example-shop.com";
const PAGE = "http://127.0.0.1:4173";

let world: ServiceWorld;
let secret: string;

beforeAll(async () => {
  world = await startServiceWorld({
    zones: mailZones([DOMAIN], "own-server"),
    env: { PUBLISHABLE_RATE_LIMIT: "2" },
  });
  const store = await openStore(world.database.location);
  try {
    secret = (
      await store.keys.createKey({ plan: "free", now: new Date(), publishable: true, origins: [PAGE] })
    ).secret;
  } finally {
    await store.close();
  }
}, 60_000);

afterAll(async () => {
  if (world) expect(await world.stop()).toEqual([0]);
});

/** One request from `localAddress`, on a connection of its own. */
function send(method: string, path: string, localAddress: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>(
    (resolve, reject) => {
      const outgoing = request(
        `${world.service.url}${path}`,
        { method, agent: false, localAddress, headers },
        (response) => {
          let text = "";
          response.setEncoding("utf8");
          response.on("data", (chunk) => {
            text += chunk;
          });
          response.on("end", () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, text }),
          );
        },
      );
      outgoing.on("error", reject);
      outgoing.end();
    },
  );
}

const check = (from: string) =>
  send("GET", `/?domain=${DOMAIN}`, from, { "x-gateway-key": secret, origin: PAGE, accept: "*/*" });

describe("a publishable key on the real service", () => {
  it("answers the preflight and the checks of its page, then limits each client address on its own", async () => {
    const preflight = await send("OPTIONS", "/", "127.0.0.2", {
      origin: PAGE,
      "access-control-request-method": "GET",
      "access-control-request-headers": "x-gateway-key",
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe(PAGE);
    expect(preflight.headers["access-control-allow-headers"]).toMatch(/x-gateway-key/);

    const first = await check("127.0.0.2");
    expect(first.status).toBe(200);
    expect(JSON.parse(first.text)).toMatchObject({ domain: DOMAIN, block: false });
    expect(first.headers["access-control-allow-origin"]).toBe(PAGE);
    expect((await check("127.0.0.2")).status).toBe(200);
    const limited = await check("127.0.0.2");
    expect([limited.status, JSON.parse(limited.text).code]).toEqual([429, "rate_limited"]);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(limited.headers["access-control-allow-origin"]).toBe(PAGE);

    expect([(await check("127.0.0.3")).status, (await check("127.0.0.4")).status]).toEqual([200, 200]);

    const store = await openStore(world.database.location);
    try {
      // The server made its first (secret) key on the empty database; this is the publishable one.
      const key = (await store.keys.listKeys()).find((listed) => listed.publishable);
      expect((await store.usage.keyUsage(key?.id ?? "", new Date()))?.current.used).toBe(4);
    } finally {
      await store.close();
    }
  });
});
