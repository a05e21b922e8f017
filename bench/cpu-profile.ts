/**
 * Reading a `node --cpu-prof` profile of `mailrisk serve` (`npm run profile:http`,
 * `npm run profile:cold`): the main thread's file of a profile folder, its frames named
 * by the TypeScript source they were built from (dist/'s source maps), the heaviest
 * frames as text, and the whole as a flame graph in SVG.
 *
 * The flame graph is drawn here, not by a library: the npm flame-graph renderers
 * (thlorenz/flamegraph, stackvis, flamebearer) are unmaintained or emit an HTML page
 * with scripts, and the reference `flamegraph.pl` is neither on npm nor in Debian. The
 * SVG has no script and no outside asset: it shows as an image in docs/benchmarks.md,
 * with each frame's samples in its tooltip (`<title>`).
 */
import { readdir, readFile } from "node:fs/promises";
import { SourceMap } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  /** µs on the monotonic clock, which `process.hrtime` reads in every process of the machine. */
  startTime: number;
  /** µs from the previous sample (the first: from `startTime`). */
  timeDeltas: number[];
}

/** Now on the profiles' clock (µs): the start of a profile's window, taken in another process. */
export const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

/**
 * A profile folder's newest main-thread file (`CPU.<date>.<time>.<pid>.0.<n>.cpuprofile`;
 * other threads are not 0): a folder given again (BENCH_PROFILE_DIR) keeps the older runs.
 */
export async function mainThreadProfile(dir: string): Promise<{ file: string; profile: Profile }> {
  const files = (await readdir(dir)).filter((name) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(name));
  const name = files.sort().at(-1);
  if (!name) throw new Error(`no main-thread profile in ${dir}`);
  const file = join(dir, name);
  return { file, profile: JSON.parse(await readFile(file, "utf8")) as Profile };
}

/** Names frames by their TypeScript source where dist/ has a source map, else by their script. */
class FrameNames {
  private readonly maps = new Map<string, SourceMap | undefined>();

  async load(profile: Profile): Promise<void> {
    for (const { callFrame } of profile.nodes) {
      const { url } = callFrame;
      if (this.maps.has(url)) continue;
      this.maps.set(url, undefined);
      // mailrisk's own build only: a library's map would name its sources as if they were ours.
      if (!url.startsWith("file:") || !url.includes("/dist/") || url.includes("/node_modules/")) continue;
      const text = await readFile(`${fileURLToPath(url)}.map`, "utf8").catch(() => undefined);
      if (text) this.maps.set(url, new SourceMap(JSON.parse(text)));
    }
  }

  of({ callFrame }: ProfileNode): string {
    const { functionName, url, lineNumber, columnNumber } = callFrame;
    let where = url;
    let line = lineNumber;
    const entry = this.maps.get(url)?.findEntry(lineNumber, columnNumber);
    if (entry && "originalSource" in entry) {
      where = entry.originalSource;
      line = entry.originalLine;
    }
    where = where.includes("/node_modules/")
      ? where.replace(/^.*\/node_modules\//, "")
      : where.replace(/^.*\/(src|dist)\//, "$1/");
    return `${functionName || "(anonymous)"}${where ? ` ${where}:${line + 1}` : ""}`;
  }
}

/** A call tree with frames of the same name under one parent merged, weighed in samples. */
interface Frame {
  name: string;
  samples: number;
  children: Map<string, Frame>;
}

/**
 * The samples taken from `from` on (`monotonicMicros`; the server's start-up left out) as
 * a tree of named frames; `(idle)` left out: a flame graph shows work.
 */
export async function callTree(profile: Profile, from = 0): Promise<Frame> {
  const names = new FrameNames();
  await names.load(profile);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const hits = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at >= from) hits.set(id, (hits.get(id) ?? 0) + 1);
  });
  const root: Frame = { name: "all", samples: 0, children: new Map() };
  const add = (node: ProfileNode, into: Frame): number => {
    const name = names.of(node);
    if (name.startsWith("(idle)")) return 0;
    let frame = into.children.get(name);
    if (!frame) {
      frame = { name, samples: 0, children: new Map() };
      into.children.set(name, frame);
    }
    let samples = hits.get(node.id) ?? 0;
    for (const child of node.children ?? []) samples += add(byId.get(child) as ProfileNode, frame);
    frame.samples += samples;
    return samples;
  };
  const top = profile.nodes[0];
  if (top) for (const child of top.children ?? []) root.samples += add(byId.get(child) as ProfileNode, root);
  return root;
}

/** The frames with the most samples of their own, and with the most in them and what they call. */
export function heaviest(root: Frame, top: number): { self: [string, number][]; total: [string, number][] } {
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const walk = (frame: Frame, above: Set<string>) => {
    let own = frame.samples;
    for (const child of frame.children.values()) own -= child.samples;
    self.set(frame.name, (self.get(frame.name) ?? 0) + own);
    // A recursive frame counts once per stack.
    if (!above.has(frame.name)) total.set(frame.name, (total.get(frame.name) ?? 0) + frame.samples);
    const below = new Set(above).add(frame.name);
    for (const child of frame.children.values()) walk(child, below);
  };
  for (const child of root.children.values()) walk(child, new Set());
  const sorted = (table: Map<string, number>) => [...table].sort((a, b) => b[1] - a[1]).slice(0, top);
  return { self: sorted(self), total: sorted(total) };
}

const WIDTH = 1200;
const ROW = 16;
const HEADER = 44;
const FONT = 11;
/** Frames narrower than this (px) are left out with what they call. */
const NARROWEST = 1;

const escapeXml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** mailrisk's own code warm, its libraries yellow, Node's own blue, the engine's grey; shades by name. */
function colour(name: string): string {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  const shade = hash % 15;
  const space = name.lastIndexOf(" ");
  const where = space < 0 ? "" : name.slice(space + 1);
  if (where.startsWith("src/")) return `hsl(${12 + shade}, 80%, ${58 + shade}%)`;
  if (where.startsWith("node:")) return `hsl(${205 + shade}, 55%, ${66 + shade}%)`;
  if (where.includes("/")) return `hsl(${45 + shade}, 85%, ${55 + shade}%)`;
  return `hsl(0, 0%, ${68 + shade}%)`;
}

/** The call tree as a flame graph (callers below, callees above, width by samples). */
export function flameGraphSvg(root: Frame, title: string, subtitle: string): string {
  const placed: { frame: Frame; x: number; width: number; depth: number }[] = [];
  const scale = WIDTH / Math.max(1, root.samples);
  const place = (frame: Frame, x: number, depth: number) => {
    const width = frame.samples * scale;
    if (width < NARROWEST) return;
    placed.push({ frame, x, width, depth });
    let at = x;
    for (const child of [...frame.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      place(child, at, depth + 1);
      at += child.samples * scale;
    }
  };
  place(root, 0, 0);
  const rows = Math.max(0, ...placed.map(({ depth }) => depth)) + 1;
  const height = HEADER + rows * ROW + 4;
  const drawn = placed.map(({ frame, x, width, depth }) =>
    drawFrame(frame, x, width, height - 4 - (depth + 1) * ROW, root.samples),
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Verdana, sans-serif" font-size="${FONT}" role="img">`,
    `<title>${escapeXml(`Flame graph: ${title}`)}</title>`,
    `<rect width="100%" height="100%" fill="#f8f8f4"/>`,
    `<text x="${WIDTH / 2}" y="18" text-anchor="middle" font-size="14">${escapeXml(title)}</text>`,
    `<text x="${WIDTH / 2}" y="34" text-anchor="middle">${escapeXml(subtitle)}</text>`,
    ...drawn,
    "</svg>",
    "",
  ].join("\n");
}

function drawFrame(frame: Frame, x: number, width: number, y: number, all: number): string {
  const share = ((100 * frame.samples) / all).toFixed(2);
  const fits = Math.floor((width - 4) / (FONT * 0.6));
  const label =
    fits < 3
      ? ""
      : frame.name.length <= fits
        ? frame.name
        : `${frame.name.slice(0, Math.max(1, fits - 2))}..`;
  return [
    `<g><title>${escapeXml(`${frame.name}: ${frame.samples} samples, ${share} %`)}</title>`,
    `<rect x="${x.toFixed(1)}" y="${y}" width="${width.toFixed(1)}" height="${ROW - 1}" fill="${colour(frame.name)}"/>`,
    label ? `<text x="${(x + 2).toFixed(1)}" y="${y + ROW - 4}">${escapeXml(label)}</text>` : "",
    "</g>",
  ].join("");
}
