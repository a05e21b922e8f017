/** SIGNUP (docs/accounts.md): off by default; `open` without SMTP_URL stops the start (exit 2), naming both. */
import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import { runCli } from "../src/cli/run-cli.js";
import { ConfigError, loadConfig } from "../src/config.js";

it("is off by default, takes invite and open, and refuses anything else", () => {
  expect(loadConfig({})).toMatchObject({
    signup: "off",
    signupPlan: "free",
    smtpUrl: null,
    sessionTtlSeconds: 2_592_000,
  });
  expect(loadConfig({ SIGNUP: "invite" }).signup).toBe("invite");
  expect(
    loadConfig({ SIGNUP: "open", SMTP_URL: "smtp://127.0.0.1:2525", PUBLIC_URL: "https://m.example" }).signup,
  ).toBe("open");
  expect(() => loadConfig({ SIGNUP: "yes" })).toThrow(ConfigError);
  expect(() => loadConfig({ SMTP_URL: "http://mail.example", PUBLIC_URL: "https://m.example" })).toThrow(
    ConfigError,
  );
});

it("refuses SIGNUP=open without SMTP_URL with a configuration error naming both (exit 2)", async () => {
  expect(() => loadConfig({ SIGNUP: "open" })).toThrow(/SIGNUP=open needs SMTP_URL/);
  const stderr = new PassThrough();
  let said = "";
  stderr.on("data", (chunk: Buffer) => {
    said += chunk.toString();
  });
  const io = {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr,
    env: { SIGNUP: "open" },
    cwd: process.cwd(),
  };
  expect(await runCli(["accounts", "list"], io)).toBe(2);
  expect(said).toMatch(/configuration error: SIGNUP=open needs SMTP_URL/);
});
