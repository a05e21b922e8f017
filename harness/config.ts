/**
 * The configuration a test or benchmark builds the service with: every default of
 * CONFIG_TABLE (the parse of an empty environment), then the fields it sets.
 */
import { type Config, loadConfig } from "../src/config.js";

export function configWith(fields: Partial<Config> = {}): Config {
  return { ...loadConfig({}), ...fields };
}
