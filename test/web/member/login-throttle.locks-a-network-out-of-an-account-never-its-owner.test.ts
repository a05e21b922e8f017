/**
 * The log-in throttle over real sockets from several loopback networks (docs/security.md
 * "Log-in throttling"), on both databases: wrong passwords lock only their own network
 * out of the account, and the lock ends completely; a network guessing across accounts
 * is slowed, at most 60 s at a time, and nobody else; the same answers for an unknown
 * email; and a suspended person with the right password is told whom to write to.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../../../harness/databases.js";
import { invitedBrowser, TEST_PASSWORD } from "../../../harness/form-browser.js";
import { SocketBrowser } from "../../../harness/socket-browser.js";
import { setAccountState } from "../../../src/operator/accounts.js";
import { CLI_ACTOR } from "../../../src/operator/audit.js";
import { type HttpFixture, openHttpFixture } from "../../http/helpers.js";

const MINUTE = 60_000;

describe.each(DATABASE_KINDS)("the log-in throttle on %s", (kind) => {
  let fixture: HttpFixture;
  let base: string;
  beforeEach(async () => {
    fixture = await openHttpFixture({
      kind,
      signup: "invite",
      pageRateLimit: 10_000,
      supportEmail: "help@example.org",
    });
    base = await fixture.app.listen({ host: "127.0.0.1", port: 0 });
    await invitedBrowser(fixture.app, fixture.store, fixture.clock.now(), "ann@example.com");
  });
  afterEach(() => fixture.close());

  /** A log-in from `from` (a fresh browser there): its status, Retry-After and body. */
  async function logIn(from: string, email: string, password: string) {
    const browser = new SocketBrowser(base, from);
    const answer = await browser.submit("/login", "/login", { email, password });
    const retryAfter = answer.headers["retry-after"];
    return {
      status: answer.status,
      retryAfter: retryAfter === undefined ? undefined : Number(retryAfter),
      answer,
    };
  }
  const later = (ms: number) => fixture.clock.set(new Date(fixture.clock.now().getTime() + ms));

  it("locks a network out of an account after 10 failures; the owner on another network logs in at once; the lock ends completely", async () => {
    const statuses: number[] = [];
    const waits: (number | undefined)[] = [];
    for (let i = 0; i < 30; i++) {
      const tried = await logIn("127.0.1.7", "ann@example.com", `wrong password ${i}`);
      statuses.push(tried.status);
      waits.push(tried.retryAfter);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual(Array(20).fill(429));
    for (const wait of waits.slice(10)) expect(wait).toBeGreaterThan(60);
    for (const wait of waits.slice(10)) expect(wait).toBeLessThanOrEqual(15 * 60);
    // Even the right password, from that network, waits.
    expect((await logIn("127.0.1.9", "ann@example.com", TEST_PASSWORD)).status).toBe(429);
    // From another network: at once.
    const owner = await logIn("127.0.2.7", "ann@example.com", TEST_PASSWORD);
    expect(owner.status).toBe(303);
    expect(owner.answer.headers.location).toBe("/account");

    later(15 * MINUTE + 1000);
    expect((await logIn("127.0.1.7", "ann@example.com", "one more wrong one")).status).toBe(401);
    expect((await logIn("127.0.1.7", "ann@example.com", "and another")).status).toBe(401);
    expect((await logIn("127.0.1.7", "ann@example.com", TEST_PASSWORD)).status).toBe(303);
  });

  it("answers an unknown email as a known one, lock included", async () => {
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 11; i++) {
      known.push((await logIn("127.0.3.1", "ann@example.com", `wrong ${i}`)).status);
      unknown.push((await logIn("127.0.4.1", "nobody@example.com", `wrong ${i}`)).status);
    }
    expect(unknown).toEqual(known);
    const right = await logIn("127.0.3.1", "ann@example.com", TEST_PASSWORD);
    const none = await logIn("127.0.4.1", "nobody@example.com", TEST_PASSWORD);
    expect(right.status).toBe(429);
    expect(none.status).toBe(429);
    const strip = (body: string) =>
      body.replace(/ann@example\.com|nobody@example\.com/g, "").replace(/value="[^"]+"/g, "");
    expect(strip(none.answer.body)).toBe(strip(right.answer.body));
  });

  it("slows a network that guesses across accounts, at most 60 s at a time and growing, and nobody else", async () => {
    const tries: { status: number; retryAfter: number | undefined }[] = [];
    for (let i = 0; i < 60; i++)
      tries.push(await logIn("127.0.5.3", `made.up.${i}@example.com`, "a wrong password"));
    expect(tries.slice(0, 20).map((t) => t.status)).toEqual(Array(20).fill(401));
    const slowed = tries.slice(20);
    expect(slowed.every((t) => t.status === 429)).toBe(true);
    for (const t of slowed) {
      expect(t.retryAfter).toBeGreaterThanOrEqual(1);
      expect(t.retryAfter).toBeLessThanOrEqual(60);
    }
    // Another network is not slowed: its person logs in.
    expect((await logIn("127.0.6.3", "ann@example.com", TEST_PASSWORD)).status).toBe(303);

    // Each wait over, one more try is judged and the next wait is longer, never over 60 s.
    let wait = slowed[0]?.retryAfter ?? 0;
    const waits = [wait];
    for (let round = 0; round < 14; round++) {
      later(wait * 1000);
      expect((await logIn("127.0.5.3", `again.${round}@example.com`, "a wrong password")).status).toBe(401);
      const refused = await logIn("127.0.5.3", `again.${round}.b@example.com`, "a wrong password");
      expect(refused.status).toBe(429);
      wait = refused.retryAfter ?? 0;
      waits.push(wait);
    }
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThanOrEqual(waits[i - 1] ?? 0);
    expect(Math.max(...waits)).toBe(60);
    // After its wait, the slowed network's person logs in too: a slowing, never a lock.
    later(wait * 1000);
    expect((await logIn("127.0.5.3", "ann@example.com", TEST_PASSWORD)).status).toBe(303);
  });

  it("tells a suspended person with the right password whom to write to, and a wrong password the usual message", async () => {
    await setAccountState(fixture.store, "ann@example.com", "suspended", CLI_ACTOR);
    const right = await logIn("127.0.7.1", "ann@example.com", TEST_PASSWORD);
    expect(right.status).toBe(403);
    expect(right.answer.body).toContain("This account is suspended.");
    expect(right.answer.body).toContain("help@example.org");
    const wrong = await logIn("127.0.7.1", "ann@example.com", "not the password");
    expect(wrong.status).toBe(401);
    expect(wrong.answer.body).toContain("The email or password is wrong.");
    expect(wrong.answer.body).not.toContain("suspended");
  });
});
