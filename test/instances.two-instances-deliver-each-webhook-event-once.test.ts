/**
 * Two instances (`mailrisk serve`) on one PostgreSQL, both answering checks of the same
 * watched domains while overrides flip them and both re-deciding: each flip raises one
 * event, and each event is delivered once, never again after its 2xx.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createKeyIn } from "../harness/databases.js";
import { mailZones } from "../harness/mail-zones.js";
import { requestOnNewConnection, type ServiceProcess } from "../harness/service-process.js";
import { type ServiceWorld, startServiceWorld } from "../harness/service-world.js";
import { startWebhookReceiver, type WebhookReceiver } from "../harness/webhook-receiver.js";
import { CANARY_DOMAINS } from "../src/service/checking/create-checker.js";
import { openStore } from "../src/store/index.js";

const DOMAINS = Array.from({ length: 40 }, (_, i) => `shop-${i}.com`);

let receiver: WebhookReceiver;
let world: ServiceWorld;
let secret: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  world = await startServiceWorld({
    zones: mailZones([...CANARY_DOMAINS, ...DOMAINS], "own-server"),
    database: "postgres",
    instances: 2,
  });
  secret = await createKeyIn(world.database.location, "team", 100_000);
}, 90_000);

afterAll(async () => {
  const codes = await world?.stop();
  await receiver?.close();
  if (world) expect(codes).toEqual([0, 0]);
});

async function checkAll(instance: ServiceProcess): Promise<void> {
  for (const domain of DOMAINS) {
    const { status } = await requestOnNewConnection(`${instance.url}/v2/`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}` },
      body: { domain },
    });
    expect(status).toBe(200);
  }
}

it("delivers each flip's event once with two instances answering and re-deciding", async () => {
  const instances = world.services;
  await Promise.all(instances.map(checkAll));
  const store = await openStore(world.database.location);
  try {
    await store.webhooks.createWebhook({
      url: receiver.url,
      secret: "x",
      events: ["domain.blocked", "domain.unblocked"],
      now: new Date(),
    });
    // Half fail once: their retries are claimed again by either instance.
    for (const domain of DOMAINS.slice(0, 20)) receiver.script(domain, [503]);
    const answering = Promise.all(instances.map(checkAll));
    for (const value of DOMAINS) {
      await store.overrides.setOverride({
        kind: "domain",
        value,
        action: "deny",
        note: null,
        createdAt: new Date(),
      });
    }
    await answering;
    await Promise.all(instances.map(checkAll));
    const delivered = (received: typeof receiver.received) =>
      received.filter((r) => r.status === 200).map((r) => String(r.json.domain));
    await receiver.waitFor((received) => new Set(delivered(received)).size === DOMAINS.length, 40_000);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    // One event per domain, one 2xx per event, and no attempt after it.
    const ids = new Map<string, Set<unknown>>();
    for (const r of receiver.received) {
      const set = ids.get(String(r.json.domain)) ?? new Set();
      set.add(r.headers["mailrisk-event-id"]);
      ids.set(String(r.json.domain), set);
    }
    expect([...ids.values()].every((set) => set.size === 1)).toBe(true);
    expect(delivered(receiver.received).sort()).toEqual([...DOMAINS].sort());
    expect(receiver.received).toHaveLength(DOMAINS.length + 20);
    const events = await store.webhooks.deliveries(null, 1000);
    expect(events).toHaveLength(DOMAINS.length);
    expect(events.every((event) => event.status === "delivered")).toBe(true);
  } finally {
    await store.close();
  }
}, 90_000);
