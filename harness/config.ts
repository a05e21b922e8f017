/**
 * The configuration of a test or benchmark set-up: every default of CONFIG_TABLE (the
 * parse of an empty environment) but TEST_NAMES, on so the fixtures' `.test` names and
 * documentation MX addresses count as public; then the fields it sets.
 */
import { type Config, loadConfig } from "../src/config.js";
import type { NameRules } from "../src/core/reserved-names.js";

export function configWith(fields: Partial<Config> = {}): Config {
  return { ...loadConfig({ TEST_NAMES: "on" }), ...fields };
}

/** TEST_NAMES on, for what judges names below the configuration (parsers, engine deps). */
export const TEST_NAMES_ON: Readonly<NameRules> = { testNames: true };
