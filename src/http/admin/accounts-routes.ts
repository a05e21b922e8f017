/** `/admin/accounts` (docs/accounts.md, docs/api.md "Administration"): adapts src/operator/accounts.ts. */

import { Type } from "@fastify/type-provider-typebox";
import {
  AccountParams,
  AccountPlanBody,
  AccountSchema,
  AccountSearchFields,
  AccountWithKeysSchema,
  deleteAccount,
  InviteBody,
  inviteAccount,
  listAccounts,
  OneTimeLinkSchema,
  resetPasswordLink,
  setAccountPlan,
  setAccountState,
  showAccount,
} from "../../operator/accounts.js";
import { ADMIN_TOKEN_ACTOR } from "../../operator/audit.js";
import { resetTwoFactor } from "../../operator/two-factor.js";
import type { TypedApp } from "../typed-app.js";
import { adminRoute } from "./admin-schemas.js";
import type { AdminDeps } from "./deps.js";

export function adminAccountRoutes(app: TypedApp, { store, clock, links }: AdminDeps): void {
  app.get(
    "/admin/accounts",
    adminRoute(
      {
        summary: "List the accounts, newest first",
        description: "At most 1,000; with `search`, the accounts whose email contains it.",
        querystring: Type.Object(AccountSearchFields),
      },
      Type.Array(AccountSchema),
      [400],
    ),
    (request) => listAccounts(store, request.query.search),
  );
  app.get(
    "/admin/accounts/:account",
    adminRoute(
      { params: AccountParams, summary: "An account (id or email) with its keys" },
      AccountWithKeysSchema,
      [404],
    ),
    (request) => showAccount(store, request.params.account),
  );
  app.patch(
    "/admin/accounts/:account",
    adminRoute(
      {
        params: AccountParams,
        summary: "Move an account and its keys to another plan",
        description:
          "The account's keys count against the new plan's quota at once on this server, within a second on every other process and instance.",
        body: AccountPlanBody,
      },
      AccountSchema,
      [400, 404],
    ),
    (request) => setAccountPlan(store, request.params.account, request.body.plan, ADMIN_TOKEN_ACTOR),
  );
  for (const [action, state] of [
    ["suspend", "suspended"],
    ["resume", "active"],
  ] as const) {
    app.post(
      `/admin/accounts/:account/${action}`,
      adminRoute(
        { params: AccountParams, summary: `${action === "suspend" ? "Suspend" : "Resume"} an account` },
        AccountSchema,
        [404],
      ),
      (request) => setAccountState(store, request.params.account, state, ADMIN_TOKEN_ACTOR),
    );
  }
  app.delete(
    "/admin/accounts/:account",
    adminRoute({ params: AccountParams, summary: "Delete an account with its keys" }, AccountSchema, [404]),
    (request) => deleteAccount(store, request.params.account, ADMIN_TOKEN_ACTOR),
  );
  app.post(
    "/admin/accounts/invite",
    adminRoute(
      { summary: "A one-time link where an invited person sets a password", body: InviteBody },
      OneTimeLinkSchema,
      [400, 404, 409],
      201,
    ),
    (request) => inviteAccount(store, request.body, links, clock(), ADMIN_TOKEN_ACTOR),
  );
  app.post(
    "/admin/accounts/:account/reset-password",
    adminRoute(
      { params: AccountParams, summary: "A one-time link where the owner sets a new password" },
      OneTimeLinkSchema,
      [404],
    ),
    (request) => resetPasswordLink(store, request.params.account, links, clock(), ADMIN_TOKEN_ACTOR),
  );
  app.post(
    "/admin/accounts/:account/reset-2fa",
    adminRoute(
      {
        params: AccountParams,
        summary: "Turn off an account's two-factor log-in",
        description:
          "Clears the secret and the recovery codes of a person who lost both; the next log-in asks for the password alone. Audited `account.2fa_reset` (nothing when it was off).",
      },
      AccountSchema,
      [404],
    ),
    (request) => resetTwoFactor(store, request.params.account, ADMIN_TOKEN_ACTOR),
  );
}
