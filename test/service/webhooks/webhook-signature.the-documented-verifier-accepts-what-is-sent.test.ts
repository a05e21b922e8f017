/**
 * The verifier of docs/webhooks.md, run as written: it accepts a signature the server
 * makes (`signWebhook`) within the replay window, and refuses another secret, a changed
 * body, and a signature older or newer than the window.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { signWebhook, verifyWebhook } from "../../../src/service/webhooks/webhook-signature.js";

type Verifier = (secret: string, rawBody: string, header: string, toleranceSeconds?: number) => boolean;

async function documentedVerifier(): Promise<Verifier> {
  const doc = await readFile(new URL("../../../docs/webhooks.md", import.meta.url), "utf8");
  const code = /```js\n([\s\S]*?)```/.exec(doc)?.[1];
  expect(code).toBeDefined();
  expect((code ?? "").trim().split("\n").length).toBeLessThanOrEqual(10);
  const dir = await mkdtemp(join(tmpdir(), "mailrisk-verifier-"));
  try {
    const file = join(dir, "verify.mjs");
    await writeFile(file, code ?? "");
    return ((await import(pathToFileURL(file).href)) as { verifyMailrisk: Verifier }).verifyMailrisk;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

it("accepts what the server signs within the window and refuses anything else", async () => {
  const verify = await documentedVerifier();
  const body = JSON.stringify({ id: "evt_1", type: "domain.blocked", domain: "example-shop.com" });
  const now = new Date();
  const header = signWebhook("the secret", body, now);
  expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  expect(verify("the secret", body, header)).toBe(true);
  expect(verifyWebhook("the secret", body, header, now)).toBe(true);
  expect(verify("another secret", body, header)).toBe(false);
  expect(verify("the secret", body.replace("blocked", "unblocked"), header)).toBe(false);
  expect(verify("the secret", body, signWebhook("the secret", body, new Date(now.getTime() - 600_000)))).toBe(
    false,
  );
  expect(verify("the secret", body, signWebhook("the secret", body, new Date(now.getTime() + 600_000)))).toBe(
    false,
  );
  expect(verify("the secret", body, "v1=00")).toBe(false);
  expect(verify("the secret", body, header.replace(/v1=.*/, "v1=zz"))).toBe(false);
});
