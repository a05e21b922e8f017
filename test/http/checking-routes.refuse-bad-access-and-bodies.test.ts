import { securitySuite, unauthorizedSuite } from "./security-suite.js";

securitySuite({
  name: "GET /",
  request: (secret, input) => ({
    method: "GET",
    url: "/",
    query: { domain: input },
    headers: secret === null ? {} : { "x-gateway-key": secret },
  }),
  withKey: (options, secret) => ({ ...options, headers: { ...options.headers, "x-gateway-key": secret } }),
  wrongMethod: { method: "DELETE", allow: "GET, HEAD" },
  readsBody: false,
  challenges: false,
});

securitySuite({
  name: "POST /v2/",
  request: (secret, input) => ({
    method: "POST",
    url: "/v2/",
    payload: { domain: input },
    headers: secret === null ? {} : { authorization: `Bearer ${secret}` },
  }),
  withKey: (options, secret) => ({
    ...options,
    headers: { ...options.headers, authorization: `Bearer ${secret}` },
  }),
  wrongMethod: { method: "PUT", allow: "POST" },
  readsBody: true,
  challenges: true,
});

const bearer = (secret: string | null) => (secret === null ? {} : { authorization: `Bearer ${secret}` });

unauthorizedSuite([
  {
    name: "GET /",
    request: (secret) => ({
      method: "GET",
      url: "/",
      query: { domain: "example.com" },
      headers: secret === null ? {} : { "x-gateway-key": secret },
    }),
  },
  {
    name: "POST /v2/",
    request: (secret) => ({
      method: "POST",
      url: "/v2/",
      payload: { domain: "example.com" },
      headers: bearer(secret),
    }),
  },
  {
    name: "POST /v2/bulk",
    request: (secret) => ({
      method: "POST",
      url: "/v2/bulk",
      payload: ["example.com"],
      headers: bearer(secret),
    }),
  },
  {
    name: "GET /v2/usage",
    request: (secret) => ({ method: "GET", url: "/v2/usage", headers: bearer(secret) }),
  },
  {
    name: "POST /v2/reports",
    request: (secret) => ({
      method: "POST",
      url: "/v2/reports",
      payload: { domain: "example.com", expected: "block" },
      headers: bearer(secret),
    }),
  },
  {
    name: "GET /v2/reports/{id}",
    request: (secret) => ({ method: "GET", url: "/v2/reports/1", headers: bearer(secret) }),
  },
]);
