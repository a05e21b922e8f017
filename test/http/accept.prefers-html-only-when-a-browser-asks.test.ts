import { expect, it } from "vitest";
import { prefersHtml } from "../../src/http/accept.js";

it.each([
  ["text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", true],
  ["text/html", true],
  ["TEXT/HTML", true],
  ["text/*", true],
  ["text/html;q=0.9, application/json;q=0.8", true],
  [undefined, false],
  ["", false],
  ["*/*", false],
  ["application/json", false],
  ["application/json, text/html", false],
  ["text/html;q=0.5, application/json", false],
  ["text/html;q=0", false],
  ["text/html;q=abc", false],
  ["garbage;;;,", false],
  ["application/*, text/html;q=0.9", false],
])("Accept %j → %s", (accept, expected) => {
  expect(prefersHtml(accept)).toBe(expected);
});
