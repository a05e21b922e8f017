/**
 * Input rules of docs/api.md "Inputs": an email address or a domain, normalised to the ASCII
 * domain that is checked. Every bad input gets a precise problem, never a throw.
 */
import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { type NameRules, nonPublicName } from "./reserved-names.js";

export type InputKind = "email" | "domain";

export interface ParsedInput {
  kind: InputKind;
  /** Normalised ASCII (A-label) domain. */
  domain: string;
  /** The local part of an email input, as given; null for a domain input. */
  localPart: string | null;
}

export type InputProblemCode = "missing_input" | "input_too_long" | "invalid_email" | "invalid_domain";

export interface InputProblem {
  code: InputProblemCode;
  detail: string;
}

export type ParseResult = { ok: true; input: ParsedInput } | { ok: false; problem: InputProblem };

export const MAX_INPUT_LENGTH = 320;
const MAX_LOCAL_OCTETS = 64;
const MAX_ADDRESS_OCTETS = 254;
const MAX_DOMAIN_LENGTH = 253;

/** WHATWG URL parsing reads such a name as an IPv4 address ("12345", "0x10", "a.0x7f"). */
const NUMERIC_LAST_LABEL = /(?:^|\.)(?:\d+|0x[0-9a-f]*)$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** RFC 5322 atext, extended with non-ASCII (RFC 6531) for internationalised addresses. */
const DOT_ATOM = /^[\p{L}\p{N}\p{M}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}\p{M}!#$%&'*+/=?^_`{|}~-]+)*$/u;
/** DOT_ATOM for the common all-ASCII local part: the same set without Unicode classes, quicker to test. */
const ASCII_DOT_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
/** RFC 5322 quoted-string: printable qtext or quoted pairs between double quotes. */
const QUOTED_STRING = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e\u0080-\u{10ffff}]|\\[\x20-\x7e])*"$/u;

function problem(code: InputProblemCode, detail: string): ParseResult {
  return { ok: false, problem: { code, detail } };
}

function octets(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** An IPv4 or IPv6 address; the checks for its characters spare most names the address parsers. */
function isIpLiteral(name: string): boolean {
  return (name.includes(":") || /^[\d.]+$/.test(name)) && isIP(name) !== 0;
}

const DOT = 46;
const HYPHEN = 45;

/**
 * The name, lower-cased and without a trailing dot, when it is a plain valid domain:
 * two or more labels of 1–63 letters, digits and inner hyphens, at most 253 characters,
 * no A-label (`xn--`, which IDNA must check), and a last label that is no number. Every
 * rule of `parseDomainByRules` holds for such a name and IDNA leaves it as it is, so
 * the common input is answered by one scan; anything else (undefined) goes the long way,
 * which also words the problem.
 */
export function plainDomain(trimmed: string): string | undefined {
  const name = (trimmed.endsWith(".") ? trimmed.slice(0, -1) : trimmed).toLowerCase();
  if (name.length > MAX_DOMAIN_LENGTH) return undefined;
  let labelStart = 0;
  let labels = 0;
  for (let i = 0; i <= name.length; i++) {
    const code = i < name.length ? name.charCodeAt(i) : DOT;
    if (code === DOT) {
      const length = i - labelStart;
      if (length === 0 || length > 63) return undefined;
      if (name.charCodeAt(labelStart) === HYPHEN || name.charCodeAt(i - 1) === HYPHEN) return undefined;
      if (name.startsWith("xn--", labelStart)) return undefined;
      labels++;
      labelStart = i + 1;
    } else if (!((code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === HYPHEN)) {
      return undefined;
    }
  }
  return labels < 2 || NUMERIC_LAST_LABEL.test(name) ? undefined : name;
}

/**
 * Parses a domain input (or the domain part of an address): a valid domain name that is
 * public. A special-use name (`printer.local`) or one under a top-level domain the public
 * DNS does not have (`secrets-db.corp`) is refused here, before any DNS query
 * (src/core/reserved-names.ts).
 */
export function parseDomain(raw: string, rules: NameRules): ParseResult {
  const parsed = parseDomainName(raw);
  if (!parsed.ok) return parsed;
  const notPublic = nonPublicName(parsed.input.domain, rules);
  return notPublic === undefined ? parsed : problem("invalid_domain", notPublic);
}

/** A valid domain name by the rules of docs/api.md "Inputs", public or not (list entries are normalised by it). */
export function parseDomainName(raw: string): ParseResult {
  const trimmed = raw.trim();
  const plain = plainDomain(trimmed);
  if (plain !== undefined) return { ok: true, input: { kind: "domain", domain: plain, localPart: null } };
  return parseDomainByRules(trimmed);
}

/** Every rule of docs/api.md "Inputs" for a domain, each with its own problem. */
export function parseDomainByRules(trimmed: string): ParseResult {
  if (trimmed === "") return problem("missing_input", "The domain is empty.");
  if (trimmed.length > MAX_INPUT_LENGTH) {
    return problem("input_too_long", `The input is longer than ${MAX_INPUT_LENGTH} characters.`);
  }
  const name = trimmed.toLowerCase().replace(/\.$/, "");
  if (name.startsWith("[") || isIpLiteral(name)) {
    return problem("invalid_domain", "IP address literals are not domains.");
  }
  if (/[\s/\\@:?#]/.test(name)) {
    return problem("invalid_domain", `"${trimmed}" contains characters a domain cannot have.`);
  }
  if (NUMERIC_LAST_LABEL.test(name)) {
    return problem("invalid_domain", "The last label of a domain cannot be a number (decimal or 0x hex).");
  }
  const ascii = domainToASCII(name);
  if (ascii === "") return problem("invalid_domain", `"${trimmed}" is not a valid domain name (IDNA).`);
  if (isIpLiteral(ascii)) return problem("invalid_domain", "IP address literals are not domains.");
  if (ascii.length > MAX_DOMAIN_LENGTH) {
    return problem("invalid_domain", `The domain is longer than ${MAX_DOMAIN_LENGTH} characters.`);
  }
  const labels = ascii.split(".");
  if (labels.length < 2) return problem("invalid_domain", "A domain needs at least two labels (name.tld).");
  for (const label of labels) {
    if (label === "") return problem("invalid_domain", "The domain has an empty label (two dots in a row?).");
    if (label.length > 63)
      return problem("invalid_domain", `The label "${label}" is longer than 63 characters.`);
    if (!LABEL.test(label)) {
      return problem(
        "invalid_domain",
        `The label "${label}" may only hold letters, digits and inner hyphens.`,
      );
    }
  }
  return { ok: true, input: { kind: "domain", domain: ascii, localPart: null } };
}

/** Parses an email address: split at the last `@`, local part per RFC 5321/5322. */
export function parseEmail(raw: string, rules: NameRules): ParseResult {
  const address = raw.trim();
  if (address === "") return problem("missing_input", "The email address is empty.");
  if (address.length > MAX_INPUT_LENGTH) {
    return problem("input_too_long", `The input is longer than ${MAX_INPUT_LENGTH} characters.`);
  }
  const at = address.lastIndexOf("@");
  if (at < 0) return problem("invalid_email", "An email address needs an @ between local part and domain.");
  const localPart = address.slice(0, at);
  const domainPart = address.slice(at + 1);
  if (localPart === "") return problem("invalid_email", "The local part before the @ is empty.");
  const localOctets = octets(localPart);
  if (localOctets > MAX_LOCAL_OCTETS) {
    return problem("invalid_email", `The local part is longer than ${MAX_LOCAL_OCTETS} octets.`);
  }
  if (!ASCII_DOT_ATOM.test(localPart) && !DOT_ATOM.test(localPart) && !QUOTED_STRING.test(localPart)) {
    return problem(
      "invalid_email",
      "The local part is neither a dot-atom nor a quoted string (check dots, spaces and special characters).",
    );
  }
  if (domainPart === "") return problem("invalid_email", "The domain after the @ is empty.");
  const domain = parseDomain(domainPart, rules);
  if (!domain.ok) return problem("invalid_email", `The domain part is invalid: ${domain.problem.detail}`);
  if (localOctets + 1 + domain.input.domain.length > MAX_ADDRESS_OCTETS) {
    return problem("invalid_email", `The address is longer than ${MAX_ADDRESS_OCTETS} octets.`);
  }
  return { ok: true, input: { kind: "email", domain: domain.input.domain, localPart } };
}

/** An input that may be either: with an `@` it is an email address, else a domain. */
export function parseInput(raw: string, rules: NameRules): ParseResult {
  return raw.includes("@") ? parseEmail(raw, rules) : parseDomain(raw, rules);
}
