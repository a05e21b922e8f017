/** `/admin/keys` (docs/api.md "Administration"): adapts src/operator/keys.ts and usage.ts. */

import { Type } from "@fastify/type-provider-typebox";
import { ADMIN_TOKEN_ACTOR } from "../../operator/audit.js";
import { KeyWithUsageSchema, keyUsage } from "../../operator/key-usage.js";
import {
  CreatedKeySchema,
  CreateKeyBody,
  createKey,
  KeyIdParams,
  KeyOriginsBody,
  KeySchema,
  listKeys,
  MoveKeyBody,
  revokeKey,
  setKeyOrigins,
  setKeyPlan,
} from "../../operator/keys.js";
import type { TypedApp } from "../typed-app.js";
import { ADMIN_ROUTE, adminResponses } from "./admin-schemas.js";
import { type AdminDeps, settled } from "./deps.js";

export function adminKeyRoutes(app: TypedApp, { store, clock, settle }: AdminDeps): void {
  const schema = { ...ADMIN_ROUTE, params: KeyIdParams };
  app.get(
    "/admin/keys",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "List the keys (never their secrets)",
        response: adminResponses(200, Type.Array(KeySchema), []),
      },
    },
    () => listKeys(store),
  );

  app.post(
    "/admin/keys",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "Create a key on a plan; the secret is in this answer only",
        description:
          "With `publishable: true` and `origins`, a publishable (`mrp_`) key: usable only on `GET /` and `POST /v2/`, only from those origins (docs/security.md).",
        body: CreateKeyBody,
        response: adminResponses(201, CreatedKeySchema, [400, 404]),
      },
    },
    async (request, reply) => {
      reply.code(201);
      return createKey(store, request.body, clock(), ADMIN_TOKEN_ACTOR);
    },
  );

  app.get(
    "/admin/keys/:id",
    {
      schema: {
        ...schema,
        summary: "A key with its usage: the current period and the stored ones (reading counts nothing)",
        response: adminResponses(200, KeyWithUsageSchema, [404]),
      },
    },
    (request) => keyUsage(store, request.params.id, clock()),
  );

  app.patch(
    "/admin/keys/:id",
    {
      schema: {
        ...schema,
        summary: "Move a key to another plan",
        description:
          "The key counts against the new plan's quota at once on this server, within a second on every other process and instance. With the same period length its count carries over; with another one a new period starts.",
        body: MoveKeyBody,
        response: adminResponses(200, KeySchema, [400, 404]),
      },
    },
    async (request) =>
      settled(settle, setKeyPlan(store, request.params.id, request.body.plan, ADMIN_TOKEN_ACTOR)),
  );

  app.put(
    "/admin/keys/:id/origins",
    {
      schema: {
        ...schema,
        summary: "Replace a publishable key's origins",
        description:
          "Exact origins, `scheme://host[:port]`, at least one; a secret key has none (400 `invalid_origins`). Applies like a move to another plan.",
        body: KeyOriginsBody,
        response: adminResponses(200, KeySchema, [400, 404]),
      },
    },
    async (request) =>
      settled(settle, setKeyOrigins(store, request.params.id, request.body.origins, ADMIN_TOKEN_ACTOR)),
  );

  app.post(
    "/admin/keys/:id/revoke",
    {
      schema: {
        ...schema,
        summary: "Revoke a key for good (at once, on every instance)",
        response: adminResponses(200, KeySchema, [404]),
      },
    },
    (request) => revokeKey(store, request.params.id, clock(), ADMIN_TOKEN_ACTOR),
  );
}
