/**
 * Where each checking route carries its API key (docs/api.md "Routes"): `X-Gateway-Key: KEY` on
 * the gateway route, `Authorization: Bearer KEY` on the direct route, where KEY may
 * also be base64-encoded. The result lists the secrets to try, in order, or says which
 * part is wrong: nothing sent (an empty Bearer included), another scheme than Bearer
 * (`Basic …`), or a Bearer value that cannot be a key.
 */
import type { IncomingHttpHeaders } from "node:http";

export type CredentialScheme = "gateway" | "bearer";

export type Credentials =
  | { kind: "missing" }
  | { kind: "wrong_scheme" }
  | { kind: "malformed" }
  | { kind: "present"; candidates: string[] };

/** An `Authorization` header read as RFC 9110 credentials: missing, another scheme, or a Bearer token. */
export type BearerCredentials =
  | { kind: "missing" }
  | { kind: "wrong_scheme" }
  | { kind: "malformed" }
  | { kind: "bearer"; token: string };

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

/** Reads `Authorization`: no header, or `Bearer` with nothing after it, is missing; `Basic …` is another scheme. */
export function readBearer(header: string | string[] | undefined): BearerCredentials {
  const authorization = single(header);
  const [scheme = "", ...rest] = authorization.split(/[ \t]+/);
  if (authorization === "" || (/^Bearer$/i.test(scheme) && rest.length === 0)) return { kind: "missing" };
  if (!/^Bearer$/i.test(scheme)) return { kind: "wrong_scheme" };
  return rest.length === 1 && rest[0] ? { kind: "bearer", token: rest[0] } : { kind: "malformed" };
}

export function readCredentials(scheme: CredentialScheme, headers: IncomingHttpHeaders): Credentials {
  if (scheme === "gateway") {
    const key = single(headers["x-gateway-key"]);
    return key === "" ? { kind: "missing" } : { kind: "present", candidates: [key] };
  }
  const bearer = readBearer(headers.authorization);
  if (bearer.kind !== "bearer") return bearer;
  const { token } = bearer;
  const decoded = base64Decoded(token);
  return { kind: "present", candidates: decoded === undefined ? [token] : [token, decoded] };
}
