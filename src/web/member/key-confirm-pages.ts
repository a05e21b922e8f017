/**
 * The second step of Roll and Revoke (docs/accounts.md "Keys"): the keys page links to
 * `GET /account/keys/<id>/roll` or `/revoke`, a page that says what will happen and asks to
 * confirm with a button that posts the change (no browser `confirm()`, no script), or to
 * go back. Revoking is red and says it cannot be undone; rolling says the old key keeps
 * working for 24 hours.
 */

import { HttpProblem } from "../../http/http-problem.js";
import type { TypedApp } from "../../http/typed-app.js";
import { accountKeyUsage } from "../../operator/account-keys.js";
import { accountJson } from "../../operator/accounts.js";
import { refusalOf } from "../../operator/refusal.js";
import { html } from "../../page-kit/html.js";
import { card, form } from "../../page-kit/layout.js";
import { accountPage } from "./account-views.js";
import { type AccountPagesDeps, type PageSession, send } from "./page-session.js";

const STEPS = {
  roll: {
    title: "Roll key",
    button: "Roll key",
    style: "act",
    what: "A new secret takes this key's place and is shown once; the old secret keeps working for 24 hours, so your servers can move to the new one.",
  },
  revoke: {
    title: "Revoke key",
    button: "Revoke key",
    style: "act danger",
    what: "The key stops working at once, for every request that uses it. This cannot be undone.",
  },
} as const;

export function keyConfirmPages(app: TypedApp, deps: AccountPagesDeps, pages: PageSession): void {
  const { store, clock } = deps;
  for (const [verb, step] of Object.entries(STEPS)) {
    app.get<{ Params: { id: string } }>(
      `/account/keys/:id/${verb}`,
      { schema: { hide: true } },
      async (request, reply) => {
        const found = await pages.loggedIn(request, reply);
        if (!found) return reply;
        const key = await accountKeyUsage(store, found.account, request.params.id, clock()).catch(
          (error: unknown) => {
            throw refusalOf(error)
              ? new HttpProblem("not_found", "There is no such key in your account.")
              : error;
          },
        );
        const name = key.name ?? key.id;
        const path = `/account/keys/${encodeURIComponent(key.id)}`;
        const confirm = form({
          action: `${path}/${verb}`,
          csrf: found.csrf,
          fields: undefined,
          button: step.button,
          buttonClass: step.style,
        });
        const body = card(
          "confirm-heading",
          `${step.title} ${name}?`,
          html`<p>Key <strong>${name}</strong> (<code>${key.prefix}…</code>). ${step.what}</p>
${confirm}
<p><a href="/account/keys">Cancel, keep the key as it is</a></p>`,
        );
        return send(reply, accountPage(step.title, accountJson(found.account), found.csrf, body));
      },
    );
  }
}
