/**
 * The help of every `--json` form (src/cli/commands.ts, docs/api.md "Running it") names
 * the admin route whose body it prints, and the fields it lists are that route's answer
 * schema's, in the wire's order, read from the service's own /openapi.json: a field the
 * schema gains or loses fails here until the help says so. (That the bytes are the same
 * is json.is-the-admin-api-body.test.ts.)
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { COMMANDS, commandUsage } from "../../src/cli/commands.js";
import { type HttpFixture, openHttpFixture } from "../http/helpers.js";

/** `--json` forms without an admin twin: a check's record per input, and what was learnt (no admin route). */
const NOT_ADMIN_BODIES = new Set(["check", "infra list [--all] [--json]"]);

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
}

let fixture: HttpFixture;
/** Each admin route's success schema by `METHOD /path`, the path's parameters written `{}`. */
const answers = new Map<string, Schema>();
beforeAll(async () => {
  fixture = await openHttpFixture({ adminToken: "admin-token-for-tests-0123456789abcdef" });
  const doc = (await fixture.app.inject({ url: "/openapi.json" })).json() as {
    paths: Record<
      string,
      Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>
    >;
  };
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const success = operation.responses["200"] ?? operation.responses["201"];
      const schema = success?.content?.["application/json"]?.schema;
      if (schema) answers.set(`${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, "{}")}`, schema);
    }
  }
});
afterAll(() => fixture.close());

const jsonForms = COMMANDS.flatMap((command) =>
  command.forms
    .filter((form) => /\[--json\]/.test(form.args))
    .map((form) => ({ usage: commandUsage(command.name, form), details: form.details, name: command.name })),
).filter(({ usage, name }) => !NOT_ADMIN_BODIES.has(name) && !NOT_ADMIN_BODIES.has(usage));

it("has the --json forms of every operator command", () => {
  expect(jsonForms.length).toBeGreaterThanOrEqual(25);
});

it.each(jsonForms)("$usage names its admin route and that route's fields", ({ details }) => {
  const said = /`--json`: the body of `([A-Z]+) (\/admin\/[^`]*)`(.*)$/.exec(details);
  expect(said, "the help names the admin route: `--json`: the body of `METHOD /admin/…`").not.toBeNull();
  const [, method, path, rest = ""] = said ?? [];
  const schema = answers.get(`${method} ${path?.replace(/\{[^}]+\}/g, "{}")}`);
  expect(schema, `${method} ${path} answers a JSON schema`).toBeDefined();
  const shape = schema?.type === "array" ? schema.items : schema;
  const fields = Object.keys(shape?.properties ?? {});
  const required = fields.filter((field) => shape?.required?.includes(field));
  const listed = /`\{([^`]*)\}`/.exec(rest)?.[1];
  if (listed !== undefined) {
    expect([...listed.matchAll(/"([a-z_]+)"/g)].map((match) => match[1])).toEqual(required);
  }
  // Every other field named (`keys`, `"secret"`) is one of the schema's.
  for (const named of rest.replace(/`\{[^`]*\}`/, "").matchAll(/`"?([a-z_]+)"?`/g)) {
    expect(fields).toContain(named[1]);
  }
  // An optional field of a listed shape is named beside the list.
  if (listed !== undefined) {
    for (const optional of fields.filter((field) => !required.includes(field))) {
      expect(rest).toContain(`"${optional}"`);
    }
  }
});
