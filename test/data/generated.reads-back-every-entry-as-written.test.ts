/**
 * The generated files read back as written: every bundled entry with its sources (and its
 * service name) against a plain line-by-line reading of the same text, in the file's
 * order, from the bytes as from the text; a malformed line is refused with its number.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DISPOSABLE_PACKAGES, GENERATED_FILES, parseGeneratedFile } from "../../src/data/generated.js";
import { DATA_DIR } from "../../src/data/read-domain-lists.js";

/** The source names of each one-letter code, as the file's header spells them out. */
function legendOf(text: string): Map<string, string> {
  const line = text.split("\n").find((l) => l.startsWith("# Sources: ")) ?? "";
  return new Map(
    line
      .slice("# Sources: ".length)
      .split(", ")
      .map((pair): [string, string] => {
        const [code, source] = pair.split(" = ");
        return [code ?? "", source ?? ""];
      }),
  );
}

/** The plainest reading of a generated file: split into lines, then into fields. */
function readPlainly(text: string) {
  const legend = legendOf(text);
  const sources = new Map<string, string[]>();
  const names = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const [domain = "", codes = "", name] = line.split("\t");
    sources.set(
      domain,
      codes.split(",").map((code) => legend.get(code) ?? `unknown ${code}`),
    );
    if (name !== undefined) names.set(domain, name);
  }
  return { sources, names };
}

describe.each(Object.values(GENERATED_FILES))("data/%s", (file) => {
  const bytes = readFileSync(join(DATA_DIR, file));
  const text = bytes.toString("utf8");
  const plain = readPlainly(text);

  it("holds every entry with its sources and name, in the file's order, and nothing else", () => {
    const list = parseGeneratedFile(bytes, file);
    expect(list.sources.size).toBe(plain.sources.size);
    expect(plain.sources.size).toBeGreaterThan(file === GENERATED_FILES.disposable ? 100_000 : 10);
    const read = [...list.sources];
    expect(read.map(([domain]) => domain)).toEqual([...plain.sources.keys()]);
    expect([...list.sources.keys()]).toEqual([...plain.sources.keys()]);
    const differing = read.filter(
      ([domain, sources]) =>
        sources.join("\n") !== plain.sources.get(domain)?.join("\n") || list.sources.get(domain) !== sources,
    );
    expect(differing).toEqual([]);
    expect(list.names).toEqual(plain.names);
    for (const [domain] of plain.sources) {
      for (const near of [
        `x${domain}`,
        domain.slice(1),
        `${domain}.`,
        domain.toUpperCase(),
        `${domain}\u00e9`,
      ]) {
        if (!plain.sources.has(near)) expect(list.sources.get(near)).toBeUndefined();
      }
      if (file === GENERATED_FILES.disposable) break;
    }
  });

  it("reads the text as it reads the bytes", () => {
    const lines = (read: ReturnType<typeof parseGeneratedFile>) =>
      [...read.sources].map(([domain, sources]) => `${domain}\t${sources.join(",")}`).join("\n");
    expect(lines(parseGeneratedFile(text, file))).toBe(lines(parseGeneratedFile(bytes, file)));
  });
});

describe("a generated file", () => {
  const header = "# generated — do not edit\n";

  it("shares one frozen array among equal source lists, and keeps a domain's last line", () => {
    const list = parseGeneratedFile(`${header}a.com\tm\nb.com\tb,m\nc.com\tm\na.com\tb,m\n`, "t");
    expect(list.sources.get("a.com")).toEqual(["burner-email-providers", "mailchecker"]);
    expect(list.sources.get("a.com")).toBe(list.sources.get("b.com"));
    expect(Object.isFrozen(list.sources.get("c.com"))).toBe(true);
    expect(list.sources.size).toBe(3);
    expect([...list.sources.keys()]).toEqual(["a.com", "b.com", "c.com"]);
  });

  it("keeps a service name as written, in any script", () => {
    const list = parseGeneratedFile(`${header}duck.com\tc,m\tDuckDuckGo — Email Protection\n`, "t");
    expect(list.names.get("duck.com")).toBe("DuckDuckGo — Email Protection");
    expect(list.sources.get("duck.com")).toEqual(["data/curated/forwarders.txt", "mailchecker"]);
  });

  it.each([
    ["a.com\n", "t:2: expected domain<TAB>sources[<TAB>name]"],
    ["\tm\n", "t:2: expected domain<TAB>sources[<TAB>name]"],
    ["a.com\t\n", "t:2: expected domain<TAB>sources[<TAB>name]"],
    ["a.com\tm\nb.com\tm,x\n", 't:3: unknown source code "x"'],
    ["a.com\tm,,b\n", 't:2: unknown source code ""'],
    ["a.com\t\tName\n", 't:2: unknown source code ""'],
    ["müll.de\tm\n", "t:2: not an ASCII name of at most 255 characters: müll.de"],
    [`${"a".repeat(256)}\tm\n`, `t:2: not an ASCII name of at most 255 characters: ${"a".repeat(256)}`],
  ])("refuses %j with its line", (body, message) => {
    expect(() => parseGeneratedFile(`${header}${body}`, "t")).toThrow(message);
    expect(() => parseGeneratedFile(Buffer.from(`${header}${body}`), "t")).toThrow(message);
  });

  it("knows every package's code", () => {
    const lines = DISPOSABLE_PACKAGES.map((p, i) => `d${i}.com\t${p.code}`).join("\n");
    const list = parseGeneratedFile(`${header}${lines}\n`, "t");
    expect(DISPOSABLE_PACKAGES.map((_, i) => list.sources.get(`d${i}.com`))).toEqual(
      DISPOSABLE_PACKAGES.map((p) => [p.name]),
    );
  });
});
