/**
 * The account's own list in the console (docs/accounts.md "The account's list"):
 * `/account/lists` shows the entries with a Remove form each, the add form and the CSV
 * import; `/account/lists.csv` is the export. Every POST carries the session's CSRF token
 * (else 403 `csrf_failed`, nothing changed); an entry the account does not have (another
 * account's included) is a 404.
 */
import type { FastifyRequest } from "fastify";
import {
  addAccountListEntry,
  exportAccountList,
  importAccountList,
  listAccountList,
  MAX_ACCOUNT_LIST_CSV_BYTES,
  MAX_ACCOUNT_LIST_ENTRIES,
  removeAccountListEntry,
} from "../../operator/account-lists.js";
import { accountJson } from "../../operator/accounts.js";
import { refusalOf } from "../../operator/refusal.js";
import { HttpProblem } from "../http-problem.js";
import { withMethodNotAllowed } from "../method-not-allowed.js";
import { NOT_KEPT } from "../pages/cache-control.js";
import type { TypedApp } from "../typed-app.js";
import { consolePage } from "./account-views.js";
import { type ListForms, listCards } from "./list-views.js";
import {
  type AccountPagesDeps,
  type Body,
  type PageSession,
  type Session,
  send,
  text,
} from "./page-session.js";

/** The import's body: the CSV and the form's fields around it. */
const IMPORT_BODY_LIMIT = MAX_ACCOUNT_LIST_CSV_BYTES + 64 * 1024;

/** A multipart form's fields, a file's text included (the import's `file`). */
async function formFields(contentType: string, body: Buffer): Promise<Body> {
  let form: FormData;
  try {
    form = await new Response(body, { headers: { "content-type": contentType } }).formData();
  } catch {
    throw new HttpProblem("invalid_body", "The multipart/form-data body could not be read.");
  }
  const fields: Body = {};
  for (const [name, value] of form) fields[name] = typeof value === "string" ? value : await value.text();
  return fields;
}

export function listPages(app: TypedApp, deps: AccountPagesDeps, pages: PageSession): void {
  const { store, clock } = deps;
  const { session, loggedIn, checkCsrf } = pages;

  const listPage = async (found: Session, forms: ListForms = {}) =>
    consolePage(
      "Lists",
      accountJson(found.account),
      found.csrf,
      listCards(await listAccountList(store, found.account), found.csrf, forms, MAX_ACCOUNT_LIST_ENTRIES),
    );

  /** The session of a POST after its CSRF check, and its body; undefined: redirected to /login. */
  const posted = async (request: FastifyRequest) => {
    const found = await session(request);
    const body = checkCsrf(request, found?.csrf);
    return found && { found, body };
  };

  app.get("/account/lists", { schema: { hide: true } }, async (request, reply) => {
    const found = await loggedIn(request, reply);
    if (!found) return reply;
    return send(reply, await listPage(found));
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
      return reply.redirect("/account/lists", 303);
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

  // The import takes a file: a scope of its own whose multipart parser keeps files, up to the largest list.
  void app.register((scope: TypedApp) =>
    withMethodNotAllowed(scope, (imports) => {
      imports.removeContentTypeParser("multipart/form-data");
      imports.addContentTypeParser(
        "multipart/form-data",
        { parseAs: "buffer", bodyLimit: IMPORT_BODY_LIMIT },
        async (request: FastifyRequest, body: Buffer) =>
          formFields(String(request.headers["content-type"]), body),
      );
      imports.post(
        "/account/lists/import",
        { schema: { hide: true }, bodyLimit: IMPORT_BODY_LIMIT },
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
            const forms = { csvError: `${refusal.message} Nothing was imported.` };
            return send(reply, await listPage(found, forms), refusal.badInput ? 400 : 409);
          }
        },
      );
    }),
  );
}
