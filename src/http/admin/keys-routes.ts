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
import { adminRoute } from "./admin-schemas.js";
import type { AdminDeps } from "./deps.js";

export function adminKeyRoutes(app: TypedApp, { store, clock }: AdminDeps): void {
  app.get("/admin/keys", adminRoute("List the keys (never their secrets)", Type.Array(KeySchema)), () =>
    listKeys(store),
  );

  app.post(
    "/admin/keys",
    adminRoute(
      {
        summary: "Create a key on a plan; the secret is in this answer only",
        description:
          "With `publishable: true` and `origins`, a publishable (`mrp_`) key: usable only on `GET /` and `POST /v2/`, only from those origins (docs/security.md).",
        body: CreateKeyBody,
      },
      CreatedKeySchema,
      [400, 404],
      201,
    ),
    (request) => createKey(store, request.body, clock(), ADMIN_TOKEN_ACTOR),
  );

  app.get(
    "/admin/keys/:id",
    adminRoute(
      {
        params: KeyIdParams,
        summary: "A key with its usage: the current period and the stored ones (reading counts nothing)",
      },
      KeyWithUsageSchema,
      [404],
    ),
    (request) => keyUsage(store, request.params.id, clock()),
  );

  app.patch(
    "/admin/keys/:id",
    adminRoute(
      {
        params: KeyIdParams,
        summary: "Move a key to another plan",
        description:
          "The key counts against the new plan's quota at once on this server, within a second on every other process and instance. With the same period length its count carries over; with another one a new period starts.",
        body: MoveKeyBody,
      },
      KeySchema,
      [400, 404],
    ),
    async (request) => setKeyPlan(store, request.params.id, request.body.plan, ADMIN_TOKEN_ACTOR),
  );

  app.put(
    "/admin/keys/:id/origins",
    adminRoute(
      {
        params: KeyIdParams,
        summary: "Replace a publishable key's origins",
        description:
          "Exact origins, `scheme://host[:port]`, at least one; a secret key has none (400 `invalid_origins`). Applies like a move to another plan.",
        body: KeyOriginsBody,
      },
      KeySchema,
      [400, 404],
    ),
    async (request) => setKeyOrigins(store, request.params.id, request.body.origins, ADMIN_TOKEN_ACTOR),
  );

  app.post(
    "/admin/keys/:id/revoke",
    adminRoute(
      { params: KeyIdParams, summary: "Revoke a key for good (at once, on every instance)" },
      KeySchema,
      [404],
    ),
    (request) => revokeKey(store, request.params.id, clock(), ADMIN_TOKEN_ACTOR),
  );
}
