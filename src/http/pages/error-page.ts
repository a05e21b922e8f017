/** The HTML answer of a failed page request: the problem's status, title and detail, escaped. */
import type { HttpProblem } from "../problems.js";
import { escapeHtml, renderPage } from "./layout.js";

export function renderErrorPage(problem: HttpProblem): string {
  const { title, status, detail } = problem.body();
  return renderPage(
    `${status} ${title} — mailrisk`,
    `<h1>${escapeHtml(`${status} ${title}`)}</h1>
<p>${escapeHtml(detail)}</p>
<p><a href="/">Check another domain</a></p>`,
  );
}
