/** The HTML answer of a failed page request: its status, the status phrase and a sentence, escaped. */
import { STATUS_CODES } from "node:http";
import { type Html, html } from "./html.js";
import { renderPage, searchForm } from "./layout.js";

/** What an error page shows; an `HttpProblem` is one. */
export interface PageProblem {
  status: number;
  detail: string;
}

export function renderErrorPage({ status, detail }: PageProblem): Html {
  const heading = `${status} ${STATUS_CODES[status] ?? "Error"}`;
  return renderPage({
    title: `${heading} — mailrisk`,
    description: detail,
    noindex: true,
    main: html`<section class="card" aria-labelledby="error-heading">
<h1 id="error-heading">${heading}</h1>
<p>${detail}</p>
</section>
<section class="card" aria-label="Check a domain">
${searchForm("error-q")}
</section>`,
  });
}
