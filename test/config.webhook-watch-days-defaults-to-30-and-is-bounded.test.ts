/** WEBHOOK_WATCH_DAYS: 30 by default, a whole number of days from 1 to 3650, else the start fails. */
import { expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

it("defaults to 30 days and takes 1–3650", () => {
  expect(loadConfig({}).webhookWatchDays).toBe(30);
  expect(loadConfig({ WEBHOOK_WATCH_DAYS: "1" }).webhookWatchDays).toBe(1);
  expect(loadConfig({ WEBHOOK_WATCH_DAYS: "3650" }).webhookWatchDays).toBe(3650);
  for (const bad of ["0", "3651", "-1", "2.5", "a month"]) {
    expect(() => loadConfig({ WEBHOOK_WATCH_DAYS: bad }), bad).toThrow(ConfigError);
  }
});
