/**
 * Widget size (`npm run bench:widget`): the bytes of `GET /widget.js` (widget/widget.js)
 * as served, and gzipped (level 9, as the size test measures it). Target:
 * at most 10 KB gzipped (docs/clients.md); test/http/widget.serves-one-cacheable-script-
 * under-10-kb-gzipped.test.ts holds it too.
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { gzipSync } from "node:zlib";
import { WIDGET_FILE } from "../src/http/routes/widget.js";
import { finish, formatCount } from "./report.js";

const TARGET_BYTES = 10 * 1024;

const source = readFileSync(WIDGET_FILE);
const best = gzipSync(source, { level: 9 }).length;
finish({
  title: "mailrisk widget size",
  script: "bench:widget",
  loadBefore: loadavg()[0] ?? 0,
  rows: [
    ["widget.js as served", `${formatCount(source.length)} bytes`, "", null],
    ["widget.js gzipped", `${formatCount(best)} bytes`, "≤ 10,240 bytes", best <= TARGET_BYTES],
  ],
});
