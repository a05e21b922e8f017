/**
 * `/reset`, `/login` and `/signup` answer a known and an unknown email in the same time
 * (docs/security.md "What a stranger learns"): 40 requests of each, in pairs, and the
 * median of the pairs' differences compared. A known address's work (its code, its mail) happens after the answer;
 * log-in verifies the dummy hash for an unknown one; sign-up hashes the password either way.
 * The allowed difference is a tenth of the slower median (a ratio of times measured in the
 * same run), and at least 2 ms of a quiet machine stretched by the machine's pace
 * (harness/machine-pace.ts). A first 40 pairs over the bound are followed by 80 more, and
 * all 120 are judged: a real difference stays in the median of more pairs, a burst of
 * another process's work on the shared cores does not.
 *
 * @room apart: a difference of medians of a few milliseconds, which other files' work on
 * the same cores would drown (test/projects.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FormBrowser } from "../../../harness/form-browser.js";
import { type Pace, startPace } from "../../../harness/machine-pace.js";
import { hashPassword } from "../../../src/service/accounts/account-access.js";
import { type HttpFixture, openHttpFixture } from "../../http/helpers.js";
import { type SmtpCapture, startSmtpCapture } from "./smtp-capture.js";

const ROUNDS = 40;
/** Pairs added when the first ROUNDS are over the bound. */
const MORE_ROUNDS = 80;
const PASSWORD = "a person's own long password";

let fixture: HttpFixture;
let smtp: SmtpCapture;

beforeAll(async () => {
  smtp = await startSmtpCapture();
  // The page limiter out of the way: each request here must reach its handler.
  fixture = await openHttpFixture({ signup: "open", smtpUrl: smtp.url, pageRateLimit: 1_000_000 });
  await fixture.store.accounts.createAccount({
    email: "known@example.com",
    passwordHash: await hashPassword(PASSWORD),
    role: "member",
    plan: "free",
    now: fixture.clock.now(),
  });
}, 60_000);

afterAll(async () => {
  await fixture?.close();
  await smtp?.close();
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return ((sorted[(sorted.length - 1) >> 1] as number) + (sorted[sorted.length >> 1] as number)) / 2;
}

/**
 * Pairs of posts of `fields(email, i)` to `path`, a known and an unknown email back to
 * back (in turn first), each answered `status`: ROUNDS pairs, and MORE_ROUNDS more when
 * their medians differ by more than allowed. Each side's median time, and the median of
 * the pairs' differences (which the machine's load, slow and shared by both, cancels).
 * With `apart`, the clock moves that far on before each pair.
 */
async function timings(
  path: string,
  status: number,
  fields: (email: string, i: number) => Record<string, string>,
  apart = 0,
): Promise<Timings> {
  const browser = new FormBrowser(fixture.app);
  const page = await browser.get(path);
  const pace = startPace();
  const times = { known: [] as number[], unknown: [] as number[] };
  const pairs = async (from: number, count: number) => {
    for (let i = from; i < from + count; i++) {
      fixture.clock.set(new Date(fixture.clock.now().getTime() + apart));
      for (const which of i % 2 ? (["known", "unknown"] as const) : (["unknown", "known"] as const)) {
        const email = which === "known" ? "known@example.com" : `nobody-${i}@example.com`;
        const start = performance.now();
        const answer = await browser.post(path, fields(email, i), page.body);
        times[which].push(performance.now() - start);
        expect(answer.statusCode, answer.body).toBe(status);
      }
    }
    return {
      pace,
      known: median(times.known),
      unknown: median(times.unknown),
      difference: median(times.known.map((known, i) => known - (times.unknown[i] as number))),
      pairs: times.known.length,
    };
  };
  const first = await pairs(0, ROUNDS);
  return withinBound(first) ? first : pairs(ROUNDS, MORE_ROUNDS);
}

interface Timings {
  pace: Pace;
  known: number;
  unknown: number;
  difference: number;
  pairs: number;
}

/** At most 2 ms (paced) or a tenth of the slower median, whichever is more. */
const allowedOf = ({ pace, known, unknown }: Timings) =>
  Math.max(pace.bound(2), 0.1 * Math.max(known, unknown));

const withinBound = (timed: Timings) => Math.abs(timed.difference) < allowedOf(timed);

/** The pairs differ by a median within `allowedOf`. */
function expectSameTime(timed: Timings) {
  const { known, unknown, difference, pairs } = timed;
  const medians = `${pairs} pairs: known ${known.toFixed(2)} ms, unknown ${unknown.toFixed(2)} ms, pairs differ by ${difference.toFixed(2)} ms`;
  expect(Math.abs(difference), medians).toBeLessThan(allowedOf(timed));
}

describe("known and unknown emails", () => {
  it("take the same time to ask /reset for a code", async () => {
    expectSameTime(await timings("/reset", 200, (email) => ({ email })));
  }, 120_000);

  it("take the same time to fail /login", async () => {
    // Each pair an hour and a minute after the last: every try is the first of the log-in
    // throttle's windows (its own test: login-throttle.*), so each answer is a wrong password.
    const apart = 61 * 60_000;
    const wrong = (email: string) => ({ email, password: "a wrong long password" });
    expectSameTime(await timings("/login", 401, wrong, apart));
  }, 120_000);

  it("take the same time to ask /signup", async () => {
    expectSameTime(await timings("/signup", 200, (email, i) => ({ email, password: `${PASSWORD} ${i}` })));
  }, 120_000);
});
