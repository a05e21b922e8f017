/**
 * The account's own list on its pages (docs/accounts.md "The account's list"):
 * `/account/lists` shows ENTRIES_PER_PAGE entries at a time (`?search=` and `?page=`, plain
 * links and a GET form) with a Remove form each, the add form and the CSV import;
 * `/account/lists.csv` is the export. Every POST carries the session's CSRF token (else 403
 * `csrf_failed`, nothing changed); an entry the account does not have (another account's
 * included) is a 404. An import over its limit is told so beside the file field.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { HttpProblem } from "../../http/http-problem.js";
import { withMethodNotAllowed } from "../../http/method-not-allowed.js";
import { isMultipart, readSmallForm, uploadMultipart } from "../../http/multipart-form.js";
import { refusalProblem } from "../../http/problem-response.js";
import type { TypedApp } from "../../http/typed-app.js";
import {
  addAccountListEntry,
  csvTooLarge,
  exportAccountList,
  importAccountList,
  MAX_ACCOUNT_LIST_CSV_BYTES,
  MAX_ACCOUNT_LIST_ENTRIES,
  pageAccountList,
  removeAccountListEntry,
} from "../../operator/account-lists.js";
import { accountJson } from "../../operator/accounts.js";
import { type Refusal, refusalOf } from "../../operator/refusal.js";
import { PROBLEM_STATUS } from "../../service/shared/problem-codes.js";
import { NOT_KEPT } from "../public/cache-control.js";
import { accountPage } from "./account-views.js";
import { type ListForms, listCards, listPageUrl } from "./list-views.js";
import {
  type AccountPagesDeps,
  type Body,
  type PageSession,
  type Session,
  send,
  text,
} from "./page-session.js";

/** The entries one page of the list shows. */
const ENTRIES_PER_PAGE = 100;
const LIMITS = {
  maxEntries: MAX_ACCOUNT_LIST_ENTRIES,
  maxCsvBytes: MAX_ACCOUNT_LIST_CSV_BYTES,
  perPage: ENTRIES_PER_PAGE,
};

/** Which page of which search: from the query, or a removal's form (the page it was sent from). */
function viewOf(fields: Body): { search: string; page: number } {
  const page = Number(text(fields, "page"));
  return { search: text(fields, "search").trim(), page: Number.isSafeInteger(page) && page > 1 ? page : 1 };
}

export function listPages(app: TypedApp, deps: AccountPagesDeps, pages: PageSession): void {
  const { store, clock } = deps;
  const { session, loggedIn, checkCsrf } = pages;

  const listPage = async (found: Session, forms: ListForms = {}, view = { search: "", page: 1 }) =>
    accountPage(
      "Lists",
      accountJson(found.account),
      found.csrf,
      listCards(
        await pageAccountList(store, found.account, view, ENTRIES_PER_PAGE),
        found.csrf,
        forms,
        LIMITS,
      ),
    );

  /** The import's refusal beside the file field, with the status of its code. */
  const importRefused = async (reply: FastifyReply, found: Session, { code, message }: Refusal) => {
    const csvError = `${message}${message.endsWith(".") ? "" : "."} Nothing was imported.`;
    return send(reply, await listPage(found, { csvError }), PROBLEM_STATUS[code]);
  };

  /** The session of a POST after its CSRF check, and its body; undefined: redirected to /login. */
  const posted = async (request: FastifyRequest) => {
    const found = await session(request);
    const body = checkCsrf(request, found?.csrf);
    return found && { found, body };
  };

  app.get("/account/lists", { schema: { hide: true } }, async (request, reply) => {
    const found = await loggedIn(request, reply);
    if (!found) return reply;
    return send(reply, await listPage(found, {}, viewOf(request.query as Body)));
  });

  app.post("/account/lists", { schema: { hide: true } }, async (request, reply) => {
    const sent = await posted(request);
    if (!sent) return reply.redirect("/login", 303);
    const { found, body } = sent;
    const input = { domain: text(body, "domain"), action: text(body, "action") };
    try {
      await addAccountListEntry(store, found.account, input, clock(), deps);
      return reply.redirect("/account/lists", 303);
    } catch (error) {
      const refusal = refusalOf(error);
      if (!refusal) throw error;
      // A bad action is the choice's error; any other (a bad domain, a full list) the domain's.
      const forms: ListForms =
        refusal.code === "invalid_body"
          ? { ...input, actionError: refusal.message }
          : { ...input, domainError: refusal.message };
      return send(reply, await listPage(found, forms), refusal.badInput ? 400 : 409);
    }
  });

  app.post<{ Params: { domain: string } }>(
    "/account/lists/:domain/remove",
    { schema: { hide: true } },
    async (request, reply) => {
      const sent = await posted(request);
      if (!sent) return reply.redirect("/login", 303);
      await removeAccountListEntry(store, sent.found.account, request.params.domain, deps).catch(
        (error: unknown) => {
          throw refusalOf(error)
            ? new HttpProblem("not_found", "There is no such entry in your list.")
            : error;
        },
      );
      const { search, page } = viewOf(sent.body);
      return reply.redirect(listPageUrl(search, page), 303);
    },
  );

  app.get("/account/lists.csv", { schema: { hide: true } }, async (request, reply) => {
    const found = await loggedIn(request, reply);
    if (!found) return reply;
    return reply
      .headers({
        "cache-control": NOT_KEPT,
        "content-disposition": 'attachment; filename="mailrisk-list.csv"',
      })
      .type("text/csv; charset=utf-8")
      .send(await exportAccountList(store, found.account));
  });

  // The import takes a file: a scope of its own that leaves the body unread, the file at most the largest list.
  void app.register((scope: TypedApp) =>
    withMethodNotAllowed(scope, async (imports) => {
      uploadMultipart(imports);
      imports.post(
        "/account/lists/import",
        {
          schema: { hide: true },
          // The form is read before its CSRF token can be checked (a field of it); nothing it carries is stored before.
          preHandler: async (request, reply) => {
            if (!isMultipart(request)) return;
            const form = await readSmallForm(request, MAX_ACCOUNT_LIST_CSV_BYTES);
            if ("fields" in form) {
              request.body = form.fields;
              return;
            }
            // Over the limit: the person's session says where to tell them.
            const found = await session(request);
            if (!found) throw new HttpProblem("body_too_large", refusalProblem(csvTooLarge()).detail);
            return importRefused(reply, found, csvTooLarge());
          },
        },
        async (request, reply) => {
          const sent = await posted(request);
          if (!sent) return reply.redirect("/login", 303);
          const { found, body } = sent;
          try {
            const { imported } = await importAccountList(
              store,
              found.account,
              text(body, "file"),
              clock(),
              deps,
            );
            const done = `Imported ${imported} ${imported === 1 ? "entry" : "entries"}.`;
            return send(reply, await listPage(found, { done }));
          } catch (error) {
            const refusal = refusalOf(error);
            if (!refusal) throw error;
            return importRefused(reply, found, refusal);
          }
        },
      );
    }),
  );
}
