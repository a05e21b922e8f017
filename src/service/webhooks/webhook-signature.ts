/**
 * The signature of a webhook request (docs/webhooks.md): `t=<unix seconds>,v1=<hex
 * HMAC-SHA256 of "<t>.<body>" with the webhook's secret>`.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** The `Mailrisk-Signature` header of `body` sent at `at`. */
export function signWebhook(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
  return `t=${t},v1=${v1}`;
}

/** Whether a signature header is valid for `body` and no older (or newer) than `toleranceSeconds` at `now`. */
export function verifyWebhook(
  secret: string,
  body: string,
  header: string,
  now: Date,
  toleranceSeconds = 300,
): boolean {
  const parts = new Map(header.split(",").map((part) => part.split("=", 2) as [string, string]));
  const t = Number(parts.get("t"));
  const v1 = parts.get("v1") ?? "";
  if (!Number.isInteger(t) || Math.abs(now.getTime() / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest();
  const given = Buffer.from(v1, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A new secret: 32 random bytes, hex. */
export function newWebhookSecret(): string {
  return randomBytes(32).toString("hex");
}
