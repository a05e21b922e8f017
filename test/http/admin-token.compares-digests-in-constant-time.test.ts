import { afterEach, expect, it, vi } from "vitest";

const { timingSafeEqual } = vi.hoisted(() => ({ timingSafeEqual: vi.fn() }));
vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:crypto")>();
  timingSafeEqual.mockImplementation(actual.timingSafeEqual);
  return { ...actual, timingSafeEqual };
});

const { tokenMatcher } = await import("../../src/http/bearer-token.js");

afterEach(() => timingSafeEqual.mockClear());

const TOKEN = "a-long-enough-admin-token-0123456789";

it.each([
  ["the token itself", TOKEN, true],
  ["a shorter guess", "a", false],
  ["a longer guess", `${TOKEN}x`, false],
  ["a guess differing in the last character", `${TOKEN.slice(0, -1)}X`, false],
  ["an empty string", "", false],
])("compares %s through timingSafeEqual on equal-length SHA-256 digests", (_, presented, expected) => {
  const matches = tokenMatcher(TOKEN);
  expect(matches(presented)).toBe(expected);
  expect(timingSafeEqual).toHaveBeenCalledTimes(1);
  const [a, b] = timingSafeEqual.mock.calls[0] as [Buffer, Buffer];
  expect(a.length).toBe(32);
  expect(b.length).toBe(32);
});
