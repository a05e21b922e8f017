/**
 * The client against the service as users run it (`mailrisk serve --workers 1` as a
 * process, a SQLite database, DNS and registries on loopback): records, evidence, bulk
 * results and usage as the server answers them, its problems as `MailRiskError`, and
 * fail-open while the service is frozen (SIGSTOP: connections wait, nothing answers)
 * and once it is stopped. The bound on fail-open's time is a quiet machine's, stretched
 * by the machine's pace (harness/machine-pace.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyIn } from "../../../harness/databases.js";
import { startPace } from "../../../harness/machine-pace.js";
import type { ServiceProcess } from "../../../harness/service-process.js";
import { type ServiceWorld, startServiceWorld } from "../../../harness/service-world.js";
import { FULL_FIELDS } from "../../../src/core/record.js";
import { MailRisk, MailRiskError } from "../src/index.js";

let world: ServiceWorld;
let service: ServiceProcess;
let key: string;
let client: MailRisk;

beforeAll(async () => {
  world = await startServiceWorld({ network: {} });
  service = world.service;
  key = await createKeyIn(world.database.location, "client-test", 1000);
  client = new MailRisk({ baseUrl: service.url, key, timeoutMs: 5000 });
}, 60_000);

afterAll(async () => {
  await world?.stop();
});

async function rejection(work: Promise<unknown>): Promise<MailRiskError> {
  const error = await work.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(MailRiskError);
  return error as MailRiskError;
}

describe("against a real instance", () => {
  it("checks an email address and a domain: the full record, and its evidence when asked", async () => {
    const blocked = await client.check("someone@mailinator.com");
    expect(blocked.outcome).toBe("checked");
    expect(Object.keys(blocked)).toEqual([...FULL_FIELDS, "outcome"]);
    expect(blocked).toMatchObject({ domain: "mailinator.com", block: true, is_disposable: true });

    const explained = await client.check("gmail.com", { explain: true });
    expect(explained).toMatchObject({ domain: "gmail.com", block: false, is_public_free: true });
    expect(explained.evidence?.map((item) => item.kind)).toContain("provider");
  });

  it("checks many in one request, in order, a bad item as its problem", async () => {
    const results = await client.bulk(["someone@gmail.com", "mailinator.com", "not a domain"]);
    expect(results.map((result) => result.input)).toEqual([
      "someone@gmail.com",
      "mailinator.com",
      "not a domain",
    ]);
    expect(results[0]).toMatchObject({ domain: "gmail.com", block: false });
    expect(results[1]).toMatchObject({ domain: "mailinator.com", block: true });
    expect(results[2]).toMatchObject({ status: 400, code: "invalid_domain" });
  });

  it("reads the key's usage, every check and bulk item counted", async () => {
    expect(await client.usage()).toMatchObject({ plan: "client-test", limit: 1000, used: 5, remaining: 995 });
  });

  it("turns the service's problems into MailRiskError with code, status and detail", async () => {
    const invalid = await rejection(client.check("someone@not a domain"));
    expect(invalid).toMatchObject({ code: "invalid_email", status: 400 });
    expect(invalid.detail).toMatch(/\w/);
    const wrongKey = new MailRisk({
      baseUrl: service.url,
      key: "mr_doesNotExist000000000000000000000",
      failOpen: true,
    });
    expect(await rejection(wrongKey.check("gmail.com"))).toMatchObject({
      code: "invalid_api_key",
      status: 401,
    });
  });

  it("fails open within the time-out while the service is frozen, and throws without failOpen", async () => {
    const pid = service.child.pid as number;
    process.kill(pid, "SIGSTOP");
    try {
      const open = new MailRisk({ baseUrl: service.url, key, timeoutMs: 500, failOpen: true });
      const pace = startPace();
      const started = performance.now();
      const outcome = await open.check("someone@example-unseen.com");
      expect(performance.now() - started).toBeLessThan(pace.bound(1000));
      expect(outcome.outcome === "unknown" && outcome.error.code).toBe("timeout");
      const strict = new MailRisk({ baseUrl: service.url, key, timeoutMs: 500 });
      expect((await rejection(strict.check("someone@example-unseen.com"))).code).toBe("timeout");
    } finally {
      process.kill(pid, "SIGCONT");
    }
  });

  it("fails open at once when the service is stopped", async () => {
    const url = service.url;
    expect(await service.stop()).toBe(0);
    const outcome = await new MailRisk({ baseUrl: url, key, failOpen: true }).check("gmail.com");
    expect(outcome.outcome === "unknown" && outcome.error.code).toBe("unreachable");
    expect((await rejection(new MailRisk({ baseUrl: url, key }).check("gmail.com"))).code).toBe(
      "unreachable",
    );
  });
});
