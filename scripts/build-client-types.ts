/**
 * Writes the typed client's wire types from the server's schemas
 * (scripts/client-types/generate.ts).
 *
 *   npm run client:types              rewrite clients/typescript/src/wire-types.generated.ts
 *   npm run client:types -- --check   exit 1 when it differs from the schemas
 */
import { writeFileSync } from "node:fs";
import { generatedWireTypes, ROOT } from "./client-types/generate.js";

const { file, current, expected } = generatedWireTypes();
if (current === expected) process.stdout.write(`${file} matches the schemas\n`);
else if (process.argv.includes("--check")) {
  process.stderr.write(`${file} differs from the schemas: run npm run client:types\n`);
  process.exitCode = 1;
} else {
  writeFileSync(new URL(file, ROOT), expected);
  process.stdout.write(`wrote ${file}\n`);
}
