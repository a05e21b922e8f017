import { securitySuite } from "./security-suite.js";

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
