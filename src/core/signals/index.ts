/**
 * The soft signals (docs/api.md "Verdicts", docs/verdicts.md), one file each. The order of
 * each list breaks ties: of two equally heavy signals, the first names the verdict.
 */
import { emailApi } from "./email-api.js";
import { fallbackMx } from "./fallback-mx.js";
import { forwarder } from "./forwarder.js";
import { mxUnresolvable } from "./mx-unresolvable.js";
import { possibleTypo } from "./possible-typo.js";
import { roleAccount } from "./role-account.js";
import type { AddressSignal, DomainSignal } from "./soft-signal.js";
import { unknownDomain } from "./unknown-domain.js";
import { veryYoungDomain } from "./very-young-domain.js";
import { youngDomain } from "./young-domain.js";

export const DOMAIN_SIGNALS: readonly DomainSignal[] = [
  mxUnresolvable,
  possibleTypo,
  veryYoungDomain,
  youngDomain,
  forwarder,
  emailApi,
  fallbackMx,
  unknownDomain,
];

/** Weighed per address on top of the domain's record (the record cache holds the domain's). */
export const ADDRESS_SIGNALS: readonly AddressSignal[] = [roleAccount];
