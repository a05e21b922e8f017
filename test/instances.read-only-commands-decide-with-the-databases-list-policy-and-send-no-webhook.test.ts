/**
 * One list policy for every process (issue 36, reproduction 1), on PostgreSQL: a server
 * syncing `LIST_SOURCES=mylist=…` (a loopback list naming goodshop.com) answers it
 * blocked; `mailrisk reports list` and `mailrisk check` in shells whose LIST_SOURCES is
 * off or unset decide with the database's policy all the same (blocked), and they raise
 * no webhook event: none is written to the outbox, none reaches the loopback receiver
 * (the server's own first flip, when it answered before its sync, may). An override the
 * operator sets then raises one, so the receiver does hear flips.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createKeyIn } from "../harness/databases.js";
import { checkOn, firstAnswerOn, runCli } from "../harness/instances.js";
import { type ListServer, madeUpList, startListServer } from "../harness/list-server.js";
import { mailZones } from "../harness/mail-zones.js";
import { requestOnNewConnection } from "../harness/service-process.js";
import { type ServiceWorld, startServiceWorld } from "../harness/service-world.js";
import { startWebhookReceiver, type WebhookReceiver } from "../harness/webhook-receiver.js";
import { CANARY_DOMAINS } from "../src/service/checking/create-checker.js";
import { openStore, type Store } from "../src/store/index.js";

const DOMAIN = "goodshop.com";

let lists: ListServer;
let receiver: WebhookReceiver;
let world: ServiceWorld;
let secret: string;
/** The operator's connection to the shared database. */
let store: Store;

beforeAll(async () => {
  lists = await startListServer();
  lists.publish("/a.txt", { body: `${madeUpList(20)}${DOMAIN}\n` });
  receiver = await startWebhookReceiver();
  world = await startServiceWorld({
    zones: mailZones([...CANARY_DOMAINS, DOMAIN], "own-server"),
    database: "postgres",
    env: { LIST_SOURCES: `mylist=${lists.url}/a.txt`, LIST_SYNC_INTERVAL: "2s" },
  });
  secret = await createKeyIn(world.database.location, "team", 100_000);
  store = await openStore(world.database.location);
  await store.webhooks.createWebhook({
    url: receiver.url,
    secret: "a-secret-of-enough-length",
    events: ["domain.blocked", "domain.unblocked"],
    now: new Date(),
  });
}, 90_000);

afterAll(async () => {
  await store?.close();
  const codes = await world?.stop();
  await receiver?.close();
  await lists?.close();
  if (world) expect(codes).toEqual([0]);
});

it("decides with the database's policy in every read-only command, and none sends a webhook", async () => {
  // The server syncs 2 s after its start (LIST_SYNC_INTERVAL); a loaded machine may take longer.
  for (let waited = 0; !(await store.lists.currentVersion("mylist")); waited += 100) {
    if (waited > 20_000) throw new Error("the server never synced mylist");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { record } = await firstAnswerOn(
    world.service,
    secret,
    { domain: DOMAIN },
    (r) => r.block === true,
    Date.now(),
  );
  expect(record).toMatchObject({ block: true, is_disposable: true });
  const filed = await requestOnNewConnection(`${world.service.url}/v2/reports`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}` },
    body: { domain: DOMAIN, expected: "allow" },
  });
  expect(filed.status).toBe(202);
  const events = (await store.webhooks.deliveries(null, 100)).map((event) => event.id);

  // Tests run with LIST_SOURCES=off; "" is unset: the five default sources.
  for (const LIST_SOURCES of ["off", ""]) {
    const env = { ...world.env, LIST_SOURCES };
    const queue = await runCli(["reports", "list", "--json"], env);
    expect(queue.code).toBe(0);
    expect(JSON.parse(queue.stdout)).toMatchObject([{ domain: DOMAIN, today: { answer: "block" } }]);
    const checked = await runCli(["check", "--json", DOMAIN], env);
    expect(checked.code).toBe(0);
    expect(JSON.parse(checked.stdout)).toMatchObject({ block: true, is_disposable: true });
  }
  // The server delivers its outbox every 500 ms: anything the commands raised would be here.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  expect((await store.webhooks.deliveries(null, 100)).map((event) => event.id)).toEqual(events);
  const heardBefore = receiver.received.length;
  expect(
    receiver.received.map((r) => r.headers["mailrisk-event-id"]).filter((id) => !events.includes(String(id))),
  ).toEqual([]);
  expect((await checkOn(world.service, secret, { domain: DOMAIN })).record).toMatchObject({
    block: true,
    block_status_changed_at: record.block_status_changed_at,
  });

  expect((await runCli(["overrides", "add", "allow", DOMAIN], world.env)).code).toBe(0);
  const heard = await receiver.waitFor((received) => received.length > heardBefore);
  expect(heard.slice(heardBefore).map((r) => [r.json.type, r.json.domain])).toEqual([
    ["domain.unblocked", DOMAIN],
  ]);
}, 60_000);
