/**
 * Where each checking route carries its API key (docs/api.md §3): `X-Gateway-Key: KEY` on
 * the gateway route, `Authorization: Bearer KEY` on the direct route, where KEY may
 * also be base64-encoded. The result lists the secrets to try, in order.
 */
import type { IncomingHttpHeaders } from "node:http";

export type CredentialScheme = "gateway" | "bearer";

export type Credentials =
  | { kind: "missing" }
  | { kind: "malformed" }
  | { kind: "present"; candidates: string[] };

const BASE64 = /^(?:[A-Za-z0-9+/_-]{4})*(?:[A-Za-z0-9+/_-]{2}(?:==)?|[A-Za-z0-9+/_-]{3}=?)?$/;
const PRINTABLE = /^[\x21-\x7e]+$/;

function single(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value.join(",") : (value ?? "")).trim();
}

/** The base64 reading of a token, when it is one and decodes to a printable secret. */
function base64Decoded(token: string): string | undefined {
  if (token.length < 8 || !BASE64.test(token)) return undefined;
  const decoded = Buffer.from(token, "base64").toString("utf8").trim();
  return PRINTABLE.test(decoded) && decoded !== token ? decoded : undefined;
}

export function readCredentials(scheme: CredentialScheme, headers: IncomingHttpHeaders): Credentials {
  if (scheme === "gateway") {
    const key = single(headers["x-gateway-key"]);
    return key === "" ? { kind: "missing" } : { kind: "present", candidates: [key] };
  }
  const authorization = single(headers.authorization);
  if (authorization === "") return { kind: "missing" };
  const match = /^Bearer[ \t]+(\S+)$/i.exec(authorization);
  if (!match?.[1]) return { kind: "malformed" };
  const token = match[1];
  const decoded = base64Decoded(token);
  return { kind: "present", candidates: decoded === undefined ? [token] : [token, decoded] };
}
