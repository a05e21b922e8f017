/**
 * The outbox lives in the database: `mailrisk serve` is killed (SIGKILL) while an event
 * waits for its retry (the receiver answered 500), and after a restart the event is
 * delivered, with the same id. Real retry timing (10 s after the first failure).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createKeyIn } from "../harness/databases.js";
import { mailZones } from "../harness/mail-zones.js";
import { requestOnNewConnection } from "../harness/service-process.js";
import { type ServiceWorld, startServiceWorld } from "../harness/service-world.js";
import { startWebhookReceiver, type WebhookReceiver } from "../harness/webhook-receiver.js";
import { CANARY_DOMAINS } from "../src/service/checking/create-checker.js";
import { openStore } from "../src/store/index.js";

const DOMAIN = "restart-shop.com";

let world: ServiceWorld;
let receiver: WebhookReceiver;

beforeAll(async () => {
  world = await startServiceWorld({ zones: mailZones([...CANARY_DOMAINS, DOMAIN], "own-server") });
  receiver = await startWebhookReceiver();
}, 60_000);

afterAll(async () => {
  await world?.stop();
  await receiver?.close();
});

it("delivers after a restart an event that waited for its retry when the server was killed", async () => {
  const instance = world.service;
  const secret = await createKeyIn(world.database.location, "team", 1000);
  const { status } = await requestOnNewConnection(`${instance.url}/v2/`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}` },
    body: { domain: DOMAIN },
  });
  expect(status).toBe(200);
  const store = await openStore(world.database.location);
  try {
    await store.webhooks.createWebhook({
      url: receiver.url,
      secret: "x",
      events: ["domain.blocked"],
      now: new Date(),
    });
    receiver.script(DOMAIN, [500]);
    await store.overrides.setOverride({
      kind: "domain",
      value: DOMAIN,
      action: "deny",
      note: null,
      createdAt: new Date(),
    });
    const [first] = await receiver.waitFor((received) => received.length >= 1, 20_000);
    expect(first?.status).toBe(500);
    // Once the failed attempt is recorded, the event waits 10 s for its retry: killed then.
    for (let tries = 0; (await store.webhooks.deliveries(null, 10))[0]?.attempts.length !== 1; tries++) {
      expect(tries).toBeLessThan(100);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const killed = new Promise((resolve) => instance.child.once("exit", resolve));
    instance.child.kill("SIGKILL");
    await killed;
    expect((await store.webhooks.deliveries(null, 10))[0]).toMatchObject({
      status: "pending",
      attempts: [{ statusCode: 500 }],
    });

    await world.startService();
    const [, second] = await receiver.waitFor((received) => received.length >= 2, 25_000);
    expect(second?.status).toBe(200);
    expect(second?.headers["mailrisk-event-id"]).toBe(first?.headers["mailrisk-event-id"]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.received).toHaveLength(2);
    const [event] = await store.webhooks.deliveries(null, 10);
    expect(event).toMatchObject({ status: "delivered" });
    expect(event?.attempts.map((a) => a.statusCode)).toEqual([500, 200]);
  } finally {
    await store.close();
  }
}, 60_000);
