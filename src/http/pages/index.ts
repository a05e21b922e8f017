/**
 * The pages plugin (docs/api.md §7): the HTML side of the service, encapsulated so its
 * error and not-found handlers answer HTML pages rather than problem JSON. No key and
 * no quota: the checking plugin's hooks never run here. The home page shares `GET /`
 * with the gateway route through the `homePage` constraint; the result pages will live
 * under `/domain/`, whose unknown paths already get the HTML not-found page.
 */
import type { FastifyReply } from "fastify";
import { withMethodNotAllowed } from "../method-not-allowed.js";
import { HttpProblem, problemFor } from "../problems.js";
import type { TypedApp } from "../route-deps.js";
import { renderErrorPage } from "./error-page.js";
import { renderHomePage } from "./home.js";
import { HTML_CONTENT_TYPE } from "./layout.js";

const RESULT_PAGES_PREFIX = "/domain";

function sendErrorPage(reply: FastifyReply, problem: HttpProblem) {
  return reply
    .code(problem.status)
    .headers(problem.headers)
    .type(HTML_CONTENT_TYPE)
    .send(renderErrorPage(problem));
}

export async function pagesPlugin(app: TypedApp): Promise<void> {
  app.setErrorHandler((error, request, reply) => sendErrorPage(reply, problemFor(error, request.log)));

  await withMethodNotAllowed(app, (pages) => {
    pages.get("/", { constraints: { homePage: true }, schema: { hide: true } }, async (_request, reply) =>
      reply.header("vary", "Accept").type(HTML_CONTENT_TYPE).send(renderHomePage()),
    );
  });

  await app.register(
    async (results) => {
      results.setNotFoundHandler((_request, reply) =>
        sendErrorPage(reply, new HttpProblem("not_found", "There is no page at this address.")),
      );
    },
    { prefix: RESULT_PAGES_PREFIX },
  );
}
