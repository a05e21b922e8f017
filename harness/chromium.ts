/**
 * Real Chromium for the browser tests: the Debian `chromium` package driven by
 * playwright-core (which downloads no browser). The machine has no network, so every
 * background service that would phone home is off. playwright-core gives each launch a
 * fresh temporary profile (its own --user-data-dir) and removes it on close.
 * `.ci/run` installs the package when /usr/bin/chromium is missing.
 */
import { type Browser, chromium } from "playwright-core";

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
