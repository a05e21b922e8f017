/**
 * The one place that reads the environment (docs/api.md, "Configuration"). Each field's
 * variable, default, meaning and parser are in CONFIG_TABLE (src/config-table.ts), which
 * also gives the `Config` type and the docs table; invalid values fail at start-up.
 */
import { CONFIG_TABLE, type Config } from "./config-table.js";

export { type Config, ConfigError } from "./config-table.js";

type Env = Record<string, string | undefined>;

/** Reads `env` once; relative paths resolve against `cwd`. Touches no file but for checking that a directory exists. */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const parsed = new Map<keyof Config, unknown>();
  const value = <K extends keyof Config>(key: K): Config[K] => {
    if (!parsed.has(key)) {
      const { variable, parse } = CONFIG_TABLE[key];
      const raw = env[variable]?.trim() || null;
      parsed.set(key, parse(raw, { variable, cwd, value }));
    }
    return parsed.get(key) as Config[K];
  };
  const keys = Object.keys(CONFIG_TABLE) as (keyof Config)[];
  return Object.fromEntries(keys.map((key) => [key, value(key)])) as unknown as Config;
}
