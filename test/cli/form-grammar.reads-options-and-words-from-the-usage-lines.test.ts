/**
 * The usage lines of COMMANDS are the one declaration of what each command takes
 * (src/cli/form-grammar.ts): options with or without a value, repeating ones, words and
 * how many, read from the same text `mailrisk help` prints.
 */
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/commands.js";
import {
  commandNamed,
  grammarOf,
  subcommandOf,
  subcommandsOf,
  wordCountProblem,
} from "../../src/cli/form-grammar.js";

describe("a form's grammar", () => {
  it("reads options with a value, flags and repeating options", () => {
    expect(grammarOf(commandNamed("keys"), "create")).toEqual({
      options: {
        plan: { type: "string" },
        name: { type: "string" },
        publishable: { type: "boolean" },
        origin: { type: "string", multiple: true },
        json: { type: "boolean" },
      },
      words: [],
      takesWords: false,
    });
    // `mrp_…` is a value written out, not a repeating one (that is `O…` in capitals).
    expect(grammarOf(commandNamed("demo"), undefined).options.key).toEqual({ type: "string" });
  });

  it("reads words, optional and repeating ones, named by the command's kind", () => {
    expect(grammarOf(commandNamed("keys"), "set-origins").words).toEqual([
      { noun: "key id", optional: false, repeats: false },
      { noun: "origin", optional: false, repeats: true },
    ]);
    expect(grammarOf(commandNamed("webhooks"), "deliveries").words).toEqual([
      { noun: "webhook id", optional: true, repeats: false },
    ]);
  });

  it("leaves alternatives and several forms of one sub-command to the command, options of each form first", () => {
    const check = grammarOf(commandNamed("check"), undefined);
    expect(check.words).toBeNull();
    expect(Object.keys(check.options).slice(0, 2)).toEqual(["json", "csv"]);
    expect(grammarOf(commandNamed("overrides"), "remove").words).toBeNull();
    expect(grammarOf(commandNamed("records"), "purge")).toMatchObject({ words: null, takesWords: true });
  });

  it("says what is wrong with the count of words", () => {
    const words = grammarOf(commandNamed("accounts"), "set-plan").words ?? [];
    expect(wordCountProblem("accounts set-plan", words, ["ann@shop.example"])).toBe(
      "accounts set-plan needs an account id or email and a plan",
    );
    expect(wordCountProblem("accounts set-plan", words, ["a", "b", "c", "d"])).toBe(
      'accounts set-plan takes one account id or email and one plan; "c d" is too much',
    );
    expect(wordCountProblem("accounts set-plan", words, ["a", "b"])).toBeUndefined();
  });
});

it("declares each option of a sub-command the same way in every form, and each sub-command as a plain word", () => {
  for (const command of COMMANDS) {
    for (const sub of subcommandsOf(command).length > 0 ? subcommandsOf(command) : [undefined]) {
      const forms = command.forms.filter((form) => subcommandOf(form) === sub);
      const merged = grammarOf(command, sub).options;
      for (const form of forms) {
        const alone = grammarOf({ ...command, forms: [form] }, sub).options;
        for (const [name, spec] of Object.entries(alone))
          expect(merged[name], `${command.name} ${sub} --${name}`).toEqual(spec);
      }
    }
    // A form either names a sub-command or none of the command's forms do.
    const named = command.forms.map((form) => subcommandOf(form) !== undefined);
    expect(new Set(named).size, command.name).toBe(1);
  }
});
