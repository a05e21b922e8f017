/**
 * The acceptance of an account's own list (docs/accounts.md "The account's list"), on two
 * instances sharing PostgreSQL as users run them: account A blocks a domain through the
 * console's form on the first instance; within 2 s A's key is answered `block: true` on
 * the second, its evidence naming the account's list (`override`, `scope: "account"`),
 * while B's key still gets the normal answer; an operator's allow override, set with the
 * CLI, wins over A's list. A list job of A's key follows A's list as well. Real DNS over
 * the wire to a loopback server. The 2 s are a quiet machine's, stretched by the
 * machine's pace (harness/machine-pace.ts).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { checkOn, firstAnswerOn, runCli } from "../harness/instances.js";
import { startPace } from "../harness/machine-pace.js";
import { mailZones } from "../harness/mail-zones.js";
import { testPasswordHash } from "../harness/passwords.js";
import { type ServiceWorld, startServiceWorld } from "../harness/service-world.js";
import { openStore } from "../src/store/index.js";

const DOMAIN = "example-shop.com";
const WITHIN_MS = 2000;
const PASSWORD = "correct horse battery";

let world: ServiceWorld;
const secrets: Record<"a" | "b", string> = { a: "", b: "" };

beforeAll(async () => {
  world = await startServiceWorld({
    zones: mailZones([DOMAIN], "own-server"),
    database: "postgres",
    instances: 2,
    env: { SIGNUP: "invite" },
  });
  const store = await openStore(world.database.location);
  try {
    const passwordHash = await testPasswordHash(PASSWORD);
    for (const name of ["a", "b"] as const) {
      const made = await store.accounts.createAccount({
        email: `${name}@example.org`,
        passwordHash,
        role: "member",
        plan: "free",
        now: new Date(),
      });
      secrets[name] = made.secret;
    }
  } finally {
    await store.close();
  }
}, 90_000);

afterAll(async () => {
  if (world) expect(await world.stop()).toEqual([0, 0]);
});

/** A browser of one instance's pages: its cookies, and forms sent from the instance's own origin. */
function browserOn(url: string) {
  const cookies = new Map<string, string>();
  const send = async (path: string, form?: Record<string, string>) => {
    const answer = await fetch(`${url}${path}`, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      headers: {
        accept: "text/html",
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; "),
        ...(form ? { origin: url, "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const line of answer.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return { status: answer.status, location: answer.headers.get("location"), body: await answer.text() };
  };
  const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
  return {
    /** Fills in the form of the page at `path` and sends it to `action`. */
    async submit(path: string, action: string, fields: Record<string, string>) {
      const page = await send(path);
      return send(action, { csrf: csrfOf(page.body), ...fields });
    },
  };
}

/** Uploads a one-line list job of the domain with the key, waits for it, and answers its row's `mr_block`. */
async function jobBlocks(url: string, secret: string): Promise<string | undefined> {
  const api = async (path: string, body?: string) => {
    const response = await fetch(`${url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: {
        authorization: `Bearer ${secret}`,
        ...(body === undefined ? {} : { "content-type": "text/plain" }),
      },
      ...(body === undefined ? {} : { body }),
    });
    return response.text();
  };
  const { id } = JSON.parse(await api("/v2/jobs", `ann@${DOMAIN}\n`));
  await expect
    .poll(async () => JSON.parse(await api(`/v2/jobs/${id}`)).status, { timeout: 10_000, interval: 100 })
    .toBe("done");
  const results = await api(`/v2/jobs/${id}/results`);
  const [, row] = results.trim().split(/\r?\n/);
  if (row === undefined) throw new Error(results);
  return row?.split(",")[2];
}

const explained = (secret: string, instance = world.services[1]) =>
  checkOn(instance ?? world.service, secret, { domain: DOMAIN, explain: true });

it("blocks the domain for A's keys only, on the other instance within 2 s, and the operator's override wins", async () => {
  const [first, second] = world.services;
  if (!first || !second) throw new Error("two instances");
  // A's list is held by the second instance before the change: the change signal must reach it.
  expect((await explained(secrets.a)).record).toMatchObject({ block: false, text: "Looks okay" });

  const pace = startPace();
  const a = browserOn(first.url);
  const loggedIn = await a.submit("/login", "/login", { email: "a@example.org", password: PASSWORD });
  expect([loggedIn.status, loggedIn.location]).toEqual([303, "/account"]);
  const added = await a.submit("/account/lists", "/account/lists", { domain: DOMAIN, action: "block" });
  expect([added.status, added.location]).toEqual([303, "/account/lists"]);

  const blocked = await firstAnswerOn(
    second,
    secrets.a,
    { domain: DOMAIN, explain: true },
    (r) => r.block === true,
    Date.now(),
    pace.bound(5000),
  );
  expect(blocked.after).toBeLessThan(pace.bound(WITHIN_MS));
  expect(blocked.record).toMatchObject({
    block: true,
    risk: 100,
    text: "Blocked by the account's list",
    reason: "Account list",
  });
  expect((blocked.record.evidence as unknown[])[0]).toEqual({
    kind: "override",
    detail: `The account's own list blocks ${DOMAIN}.`,
    scope: "account",
    id: `domain:${DOMAIN}`,
    action: "deny",
    note: null,
    risk: 100,
  });
  // B's key, on either instance, gets the service's answer; so does A's domain on the public page.
  for (const instance of [first, second]) {
    expect((await explained(secrets.b, instance)).record).toMatchObject({ block: false, text: "Looks okay" });
  }
  const page = await fetch(`${second.url}/domain/${DOMAIN}`, { headers: { accept: "text/html" } });
  expect(await page.text()).not.toContain("account's list");

  // A list job of A's key is answered by A's list too; one of B's key is not.
  expect(await jobBlocks(second.url, secrets.a)).toBe("true");
  expect(await jobBlocks(second.url, secrets.b)).toBe("false");

  // The operator allows the domain: the operator's override wins over A's list.
  expect((await runCli(["overrides", "add", "allow", DOMAIN], world.env)).code).toBe(0);
  const allowed = await firstAnswerOn(
    second,
    secrets.a,
    { domain: DOMAIN, explain: true },
    (r) => r.block === false,
    Date.now(),
    pace.bound(5000),
  );
  expect(allowed.after).toBeLessThan(pace.bound(WITHIN_MS));
  expect(allowed.record).toMatchObject({ block: false, reason: "Operator override" });
  expect(allowed.record.evidence).toContainEqual(
    expect.objectContaining({ kind: "override", scope: "operator", action: "allow" }),
  );
}, 60_000);
