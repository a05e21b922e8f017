import { expect, it } from "vitest";
import { readCredentials } from "../../src/http/credentials.js";

const SECRET = "mr_0123456789abcdefABCDEF0123456789";
const ENCODED = Buffer.from(SECRET).toString("base64");

it.each([
  [{ authorization: `Bearer ${SECRET}` }, { kind: "present", candidates: [SECRET] }],
  [{ authorization: `bearer  ${SECRET} ` }, { kind: "present", candidates: [SECRET] }],
  [{ authorization: `Bearer ${ENCODED}` }, { kind: "present", candidates: [ENCODED, SECRET] }],
  [
    { authorization: `Bearer ${Buffer.from(SECRET).toString("base64url")}` },
    { kind: "present", candidates: [Buffer.from(SECRET).toString("base64url"), SECRET] },
  ],
  [
    { authorization: `Bearer ${Buffer.from([0xff, 0, 1, 2, 3, 4]).toString("base64")}` },
    { kind: "present", candidates: ["/wABAgME"] },
  ],
  [{}, { kind: "missing" }],
  [{ authorization: "  " }, { kind: "missing" }],
  [{ authorization: `Basic ${ENCODED}` }, { kind: "wrong_scheme" }],
  [{ authorization: SECRET }, { kind: "wrong_scheme" }],
  [{ authorization: "Token abc" }, { kind: "wrong_scheme" }],
  [{ authorization: "Bearer" }, { kind: "missing" }],
  [{ authorization: "bearer   " }, { kind: "missing" }],
  [{ authorization: "Bearer a b" }, { kind: "malformed" }],
])("bearer %j → %j", (headers, expected) => {
  expect(readCredentials("bearer", headers)).toEqual(expected);
});

it.each([
  [{ "x-gateway-key": SECRET }, { kind: "present", candidates: [SECRET] }],
  [{ "x-gateway-key": ENCODED }, { kind: "present", candidates: [ENCODED] }],
  [{ authorization: `Bearer ${SECRET}` }, { kind: "missing" }],
  [{}, { kind: "missing" }],
])("gateway %j → %j", (headers, expected) => {
  expect(readCredentials("gateway", headers)).toEqual(expected);
});
