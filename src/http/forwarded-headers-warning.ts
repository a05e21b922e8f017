/**
 * A server behind a reverse proxy without TRUST_PROXY sees every client as the proxy:
 * the log-in throttle and the page limiter then count all its users as one network
 * (docs/security.md "Behind a proxy"). The first request that carries forwarding
 * headers from a loopback or private address (where proxies live) logs one warning
 * naming the setting; a public address that sends them is a client, not a proxy.
 */
import type { FastifyRequest } from "fastify";
import ipaddr from "ipaddr.js";

const PROXY_RANGES = new Set(["loopback", "private", "uniqueLocal", "linkLocal", "carrierGradeNat"]);

function isProxyAddress(address: string | undefined): boolean {
  if (address === undefined || !ipaddr.isValid(address)) return false;
  return PROXY_RANGES.has(ipaddr.process(address).range());
}

/** A check for the onRequest hook: logs the warning once, then costs one boolean a request. */
export function forwardedHeadersWarning(): (request: FastifyRequest) => void {
  let warned = false;
  return (request) => {
    if (warned) return;
    const { headers } = request;
    if (headers["x-forwarded-for"] === undefined && headers.forwarded === undefined) return;
    if (!isProxyAddress(request.socket.remoteAddress)) return;
    warned = true;
    request.log.warn(
      { peer: request.socket.remoteAddress },
      "requests come through a proxy (X-Forwarded-For from a loopback or private address) but TRUST_PROXY is not set: every client counts as the proxy's address for the log-in throttle and the page limits; set TRUST_PROXY to the proxy's address or hop count",
    );
  };
}
