/** The packed name table: every name set is found with its last value, others are not, past its first room and page too. */
import { expect, it } from "vitest";
import { PackedNames } from "../../src/core/packed-names.js";

it("finds every name with its last value, and no other, after growing past its room and its first page", () => {
  const names = new PackedNames(10);
  for (let i = 0; i < 50_000; i++) names.set(`name-${i}.example-throwaway.com`, i);
  names.set("name-7.example-throwaway.com", 99);
  expect(names.size).toBe(50_000);
  expect(names.get("name-7.example-throwaway.com")).toBe(99);
  expect(names.get("name-49999.example-throwaway.com")).toBe(49_999);
  for (const absent of [
    "name-50000.example-throwaway.com",
    "name-7.example-throwaway.co",
    "",
    "ame-7.example-throwaway.com",
  ]) {
    expect(names.get(absent)).toBeUndefined();
  }
  for (let i = 0; i < 50_000; i += 997)
    expect(names.get(`name-${i}.example-throwaway.com`)).toBe(i === 7 ? 99 : i);
});

it("refuses a name that is not ASCII or is over 255 characters, and never matches one", () => {
  const names = new PackedNames(4);
  names.set("xn--mll-mail-65a.de", 1);
  expect(() => names.set("müll-mail.de", 2)).toThrow(RangeError);
  expect(() => names.set("a".repeat(256), 3)).toThrow(RangeError);
  expect(names.get("müll-mail.de")).toBeUndefined();
  expect(names.get("xn--mll-mail-65a.de")).toBe(1);
});

it("finds a name set from bytes by its string and the other way round, and gives every name back in order", () => {
  const names = new PackedNames(4);
  const bytes = new TextEncoder().encode("x\tone.example\ttwo.example\tmüll.de\t");
  names.setBytes(bytes, 2, 13, 1);
  names.set("two.example", 2);
  for (let i = 0; i < 70_000; i++) names.set(`filler-${i}.example`, 3);
  expect(names.get("one.example")).toBe(1);
  expect(names.getBytes(bytes, 14, 25)).toBe(2);
  expect(names.getBytes(bytes, 2, 12)).toBeUndefined();
  names.setBytes(bytes, 14, 25, 4);
  expect(names.get("two.example")).toBe(4);
  expect(() => names.setBytes(bytes, 26, 34, 5)).toThrow(RangeError);
  expect(names.getBytes(bytes, 26, 34)).toBeUndefined();
  const all = [...names.entries()];
  expect(all.length).toBe(names.size);
  expect(all.slice(0, 3)).toEqual([
    ["one.example", 1],
    ["two.example", 4],
    ["filler-0.example", 3],
  ]);
  expect(all.at(-1)).toEqual(["filler-69999.example", 3]);
});
