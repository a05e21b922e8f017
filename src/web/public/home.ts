/**
 * The home page a browser gets on `GET /` (docs/api.md "Home page", "Result pages"): the search form (an
 * email address or a domain; only the domain is kept), the recently checked domains
 * and how to use the API.
 */

import { type Html, html } from "../../page-kit/html.js";
import { card, recentCard, renderPage, type Signup, searchForm, wayInLinks } from "../../page-kit/layout.js";
import { renderApiExamples } from "./api-examples.js";

export interface HomeView {
  recent: readonly string[];
  baseUrl: string;
  signup: Signup;
}

export function renderHomePage({ recent, baseUrl, signup }: HomeView): Html {
  return renderPage({
    headerLinks: wayInLinks(signup),
    title: "mailrisk — email and domain risk check",
    description:
      "Check whether sign-ups from an email domain should be blocked: disposable, parked, non-existent or risky domains.",
    main: html`<section class="card" aria-labelledby="home-heading">
<h1 id="home-heading">Should this sign-up be blocked?</h1>
<p class="lead">Look up an email address or a domain: disposable, parked, non-existent or risky domains get a block recommendation and a risk score.</p>
${searchForm("q")}
<p class="hint">Only the domain is checked and kept; the part before the @ is dropped on arrival.</p>
</section>
${recentCard(recent)}
${card("api-heading", "Use the API", renderApiExamples(baseUrl, "example.com", signup))}`,
  });
}
