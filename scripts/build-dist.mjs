/**
 * `npm run build` (and so `prepare`, on every install from a clone): bundles the service
 * (src/main.ts → dist/main.js) and the CLI (src/cli/main.ts → dist/cli/main.js) with
 * esbuild, their shared code and each CLI command in chunks (dist/chunks/). A process
 * then loads a few files rather than some 430 modules, each resolved, read and compiled
 * on its own: about half the CPU to a served /healthz (docs/deploy.md, "The build").
 * Type checking is `npm run typecheck`'s (tsc --noEmit); esbuild only strips the types.
 *
 * `node scripts/build-dist.mjs [OUT_DIR]`: into OUT_DIR instead of dist/ (a benchmark's).
 */
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const outdir = process.argv[2] ?? `${ROOT}dist`;

/**
 * Left to node_modules, loaded as they are: the native modules, whose loaders find their
 * compiled binary beside their own files (better-sqlite3's `bindings`, @node-rs/argon2's
 * per-platform package).
 */
const EXTERNAL = ["better-sqlite3", "@node-rs/argon2"];

// The CommonJS packages bundled into ES modules call `require` for node's own modules.
const REQUIRE =
  'import { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);';

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: ["src/main.ts", "src/cli/main.ts"],
  outdir,
  outbase: "src",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: EXTERNAL,
  banner: { js: REQUIRE },
  // Off: it sets the name of every named function each time one is made, and closures made
  // per request paid it on the hot path (docs/deploy.md, "Stack traces"). Traces name
  // functions as the sources do but where esbuild renamed one, and
  // NODE_OPTIONS=--enable-source-maps maps them to src/ (off by default: it costs at start).
  keepNames: false,
  sourcemap: true,
  sourcesContent: false,
  logLevel: "warning",
});
