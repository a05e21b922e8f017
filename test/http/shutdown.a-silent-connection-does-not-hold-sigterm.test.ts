/**
 * A connection that sends nothing does not hold the server's close
 * (src/http/silent-connections.ts): `mailrisk serve` with two such connections open exits
 * 0 within a few seconds of SIGTERM, where Node's own close would wait for the client to
 * let go. The 5 s is a quiet machine's bound, stretched by the machine's pace
 * (harness/machine-pace.ts).
 */
import { connect, type Socket } from "node:net";
import { expect, it } from "vitest";
import { startPace } from "../../harness/machine-pace.js";
import { mailZones } from "../../harness/mail-zones.js";
import { startServiceWorld } from "../../harness/service-world.js";
import { CANARY_DOMAINS } from "../../src/service/checking/create-checker.js";

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once("error", reject);
  });
}

it("exits 0 within a few seconds of SIGTERM while two silent connections are open", async () => {
  const world = await startServiceWorld({ zones: mailZones([...CANARY_DOMAINS], "own-server") });
  const { service } = world;
  const silent = await open(service.url);
  const second = await open(service.url);
  const closedByServer = Promise.all(
    [silent, second].map((socket) => new Promise<void>((resolve) => socket.once("close", () => resolve()))),
  );
  try {
    const pace = startPace();
    const started = Date.now();
    expect(await service.stop()).toBe(0);
    expect(Date.now() - started).toBeLessThan(pace.bound(5_000));
    await closedByServer;
  } finally {
    silent.destroy();
    second.destroy();
    await world.stop();
  }
});
