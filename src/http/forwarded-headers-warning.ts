/**
 * A server behind a reverse proxy without TRUST_PROXY sees every client as the proxy:
 * the log-in throttle and the page limiter then count all its users as one network
 * (docs/security.md "Behind a proxy"). The first request that carries forwarding
 * headers from a loopback or private address (where proxies live) logs one warning
 * naming the setting; a public address that sends them is a client, not a proxy.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { FastifyRequest } from "fastify";
import ipaddr from "ipaddr.js";

const PROXY_RANGES = new Set(["loopback", "private", "uniqueLocal", "linkLocal", "carrierGradeNat"]);

function isProxyAddress(address: string | undefined): boolean {
  if (address === undefined || !ipaddr.isValid(address)) return false;
  return PROXY_RANGES.has(ipaddr.process(address).range());
}

/** Whether a request carries a proxy's forwarding headers. */
function forwarded(headers: IncomingHttpHeaders): boolean {
  return headers["x-forwarded-for"] !== undefined || headers.forwarded !== undefined;
}

export interface ForwardedHeadersWarning {
  /** The check of the onRequest hook: logs the warning once, then costs one boolean a request. */
  check(request: FastifyRequest): void;
  /** Whether a request with these headers could still be the one that logs the warning (the fast path leaves it to the hook). */
  mayWarn(headers: IncomingHttpHeaders): boolean;
}

export function forwardedHeadersWarning(): ForwardedHeadersWarning {
  let warned = false;
  return {
    check(request) {
      if (warned) return;
      if (!forwarded(request.headers)) return;
      if (!isProxyAddress(request.socket.remoteAddress)) return;
      warned = true;
      request.log.warn(
        { peer: request.socket.remoteAddress },
        "requests come through a proxy (X-Forwarded-For from a loopback or private address) but TRUST_PROXY is not set: every client counts as the proxy's address for the log-in throttle and the page limits; set TRUST_PROXY to the proxy's address or hop count",
      );
    },
    mayWarn: (headers) => !warned && forwarded(headers),
  };
}
