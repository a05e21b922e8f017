/**
 * Text from outside on the terminal (docs/security.md, "Terminal output"): every control
 * character but the line feed (C0, DEL, C1) and every bidirectional mark, embedding,
 * override and isolate is shown as `\uXXXX`, never run. That escape is also JSON's, so a
 * JSON line keeps its value. `runCli` writes stdout and stderr through `terminalStream`.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every unsafe character as `\uXXXX`. */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const RAW = Symbol("the stream under a terminal stream");

type TerminalStream = NodeJS.WritableStream & { [RAW]?: NodeJS.WritableStream };

/** `stream` with every string written through `terminalText`; the rest (events, `isTTY`) is the stream's own. */
export function terminalStream(stream: NodeJS.WritableStream): NodeJS.WritableStream {
  const write = (chunk: unknown, ...rest: unknown[]) =>
    (stream.write as (...args: unknown[]) => boolean)(
      typeof chunk === "string" ? terminalText(chunk) : chunk,
      ...rest,
    );
  return new Proxy(stream, {
    get(target, property) {
      if (property === "write") return write;
      if (property === RAW) return target;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The stream under a terminal stream: for bytes that are no text from outside (the progress bar, CSV output). */
export function rawStream(stream: NodeJS.WritableStream): NodeJS.WritableStream {
  return (stream as TerminalStream)[RAW] ?? stream;
}
