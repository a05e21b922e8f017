/** `/admin/accounts` (docs/accounts.md, docs/api.md "Administration"): adapts src/operator/accounts.ts. */

import { Type } from "@fastify/type-provider-typebox";
import {
  AccountParams,
  AccountSchema,
  AccountWithKeysSchema,
  deleteAccount,
  InviteBody,
  inviteAccount,
  listAccounts,
  OneTimeLinkSchema,
  resetPasswordLink,
  setAccountState,
  showAccount,
} from "../../operator/accounts.js";
import { ADMIN_TOKEN_ACTOR } from "../../operator/audit.js";
import type { TypedApp } from "../typed-app.js";
import { ADMIN_ROUTE, adminResponses } from "./admin-schemas.js";
import { type AdminDeps, settled } from "./deps.js";

export function adminAccountRoutes(app: TypedApp, { store, clock, settle, links }: AdminDeps): void {
  const one = { ...ADMIN_ROUTE, params: AccountParams };
  app.get(
    "/admin/accounts",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "List the accounts",
        response: adminResponses(200, Type.Array(AccountSchema), []),
      },
    },
    () => listAccounts(store),
  );
  app.get(
    "/admin/accounts/:account",
    {
      schema: {
        ...one,
        summary: "An account (id or email) with its keys",
        response: adminResponses(200, AccountWithKeysSchema, [404]),
      },
    },
    (request) => showAccount(store, request.params.account),
  );
  for (const [action, state] of [
    ["suspend", "suspended"],
    ["resume", "active"],
  ] as const) {
    app.post(
      `/admin/accounts/:account/${action}`,
      {
        schema: {
          ...one,
          summary: `${action === "suspend" ? "Suspend" : "Resume"} an account`,
          response: adminResponses(200, AccountSchema, [404]),
        },
      },
      (request) => settled(settle, setAccountState(store, request.params.account, state, ADMIN_TOKEN_ACTOR)),
    );
  }
  app.delete(
    "/admin/accounts/:account",
    {
      schema: {
        ...one,
        summary: "Delete an account with its keys",
        response: adminResponses(200, AccountSchema, [404]),
      },
    },
    (request) => settled(settle, deleteAccount(store, request.params.account, ADMIN_TOKEN_ACTOR)),
  );
  app.post(
    "/admin/accounts/invite",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "A one-time link where an invited person sets a password",
        body: InviteBody,
        response: adminResponses(201, OneTimeLinkSchema, [400, 404, 409]),
      },
    },
    async (request, reply) => {
      reply.code(201);
      return inviteAccount(store, request.body, links, clock(), ADMIN_TOKEN_ACTOR);
    },
  );
  app.post(
    "/admin/accounts/:account/reset-password",
    {
      schema: {
        ...one,
        summary: "A one-time link where the owner sets a new password",
        response: adminResponses(200, OneTimeLinkSchema, [404]),
      },
    },
    (request) => resetPasswordLink(store, request.params.account, links, clock(), ADMIN_TOKEN_ACTOR),
  );
}
