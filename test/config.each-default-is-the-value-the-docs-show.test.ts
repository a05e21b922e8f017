/**
 * Each default is written once in src/config-table.ts: the docs table shows it, and the
 * parser reads that same text when the variable is unset. Whatever an entry's default
 * says as one value (`8080`, `7d`, `64KiB`, `off`), setting the variable to that value
 * must configure exactly what leaving it unset does.
 */
import { expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { CONFIG_TABLE } from "../src/config-table.js";

/** The single value a docs default names (`` `7d` `` or `` `86400` (1 day) ``), or undefined for prose. */
function documentedValue(text: string): string | undefined {
  return /^`([^`]+)`(?: \([^()`]*\))?$/.exec(text)?.[1];
}

const entries = Object.entries(CONFIG_TABLE).map(([field, entry]) => ({
  field: field as keyof typeof CONFIG_TABLE,
  variable: entry.variable,
  value: documentedValue(entry.default),
}));

it("names one value as the default of most variables", () => {
  expect(entries.filter((entry) => entry.value !== undefined).length).toBeGreaterThanOrEqual(35);
});

it.each(entries.filter((entry) => entry.value !== undefined))(
  "$variable set to its documented default $value configures what unset does",
  ({ field, variable, value }) => {
    const cwd = process.cwd();
    expect(loadConfig({ [variable]: value }, cwd)[field]).toEqual(loadConfig({}, cwd)[field]);
  },
);
