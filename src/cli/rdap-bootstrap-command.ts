/** `mailrisk rdap-bootstrap update`: adapts src/operator/rdap-bootstrap.ts. */
import type { Config } from "../config.js";
import { updateRdapBootstrap } from "../operator/rdap-bootstrap.js";
import { commandRunner } from "./arguments.js";

export interface RdapBootstrapIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  config: Pick<Config, "rdapBootstrapFile" | "stateDir">;
}

export const run = commandRunner<"rdap-bootstrap", RdapBootstrapIo>("rdap-bootstrap", {
  update: async (given, io) => {
    const done = await updateRdapBootstrap(io.config, { url: given.text("url"), out: given.text("out") });
    if (!done.written) {
      io.stderr.write(`rdap-bootstrap: ${done.reason}; ${done.file} left unchanged\n`);
      return 1;
    }
    io.stdout.write(`wrote ${done.file}: ${done.tlds} TLDs, publication ${done.publication}\n`);
    return 0;
  },
});
