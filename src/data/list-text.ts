/**
 * Reads an upstream disposable list as it is published: a JSON array of strings, or text
 * with one name a line (`#` starts a comment; blank lines are skipped). Anything that is
 * not valid UTF-8 text, or JSON that is no array of strings, is no list.
 */

export class NotAListError extends Error {}

const DECODER = new TextDecoder("utf-8", { fatal: true });

/** The raw names of a published list, in its order; `NotAListError` when it is none. */
export function readListText(bytes: Uint8Array): string[] {
  let text: string;
  try {
    text = DECODER.decode(bytes);
  } catch {
    throw new NotAListError("not UTF-8 text");
  }
  if (text.includes("\u0000")) throw new NotAListError("not text (NUL bytes)");
  const body = text.replace(/^\uFEFF/, "").trim();
  if (body.startsWith("[") || body.startsWith("{")) return jsonNames(body);
  const names: string[] = [];
  for (const line of body.split(/\r?\n/)) {
    const hash = line.indexOf("#");
    const name = (hash < 0 ? line : line.slice(0, hash)).trim();
    if (name !== "") names.push(name);
  }
  return names;
}

function jsonNames(body: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new NotAListError("a JSON document that does not parse");
  }
  if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) {
    throw new NotAListError("JSON that is not an array of strings");
  }
  return value;
}
