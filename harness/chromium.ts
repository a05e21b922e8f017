/**
 * Real Chromium for the browser tests: the Debian `chromium` package driven by
 * playwright-core (which downloads no browser). The machine has no network, so every
 * background service that would phone home is off. playwright-core gives each launch a
 * fresh temporary profile (its own --user-data-dir) and removes it on close.
 * `.ci/run` installs the package when /usr/bin/chromium is missing.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM_PATH = "/usr/bin/chromium";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
}

/** One axe-core rule a page breaks: its id, its impact and the offending elements' HTML. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: string[];
}

const require = createRequire(import.meta.url);
let axeSource: Promise<string> | undefined;

/** What axe-core (a dev dependency, injected into the page) finds wrong with the page as it is now. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFile(require.resolve("axe-core/axe.min.js"), "utf8");
  await page.evaluate(await axeSource);
  return page.evaluate(`axe.run(document, { resultTypes: ["violations"] }).then((result) =>
    result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.html) })))`);
}
