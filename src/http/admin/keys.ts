/**
 * `/admin/keys` (docs/api.md §10): list, create (secret or publishable), show with usage,
 * move to a plan, set a publishable key's origins, revoke.
 */
import { Type } from "@fastify/type-provider-typebox";
import { formatTimestamp } from "../../core/record.js";
import { UnknownKeyError } from "../../store/errors.js";
import { keyJson, keyUsageJson } from "../../store/json.js";
import type { TypedApp } from "../typed-app.js";
import type { AdminDeps } from "./deps.js";
import {
  ADMIN_ROUTE,
  adminResponses,
  CreatedKeySchema,
  CreateKeyBody,
  KeyIdParams,
  KeyOriginsBody,
  KeySchema,
  KeyWithUsageSchema,
  MoveKeyBody,
} from "./schemas.js";

export function adminKeyRoutes(app: TypedApp, { store, clock, settle }: AdminDeps): void {
  app.get(
    "/admin/keys",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "List the keys (never their secrets)",
        response: adminResponses(200, Type.Array(KeySchema), []),
      },
    },
    async () => (await store.keys.listKeys()).map(keyJson),
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
      const { key, secret } = await store.keys.createKey({
        plan: request.body.plan,
        name: request.body.name ?? null,
        now: clock(),
        publishable: request.body.publishable ?? false,
        origins: request.body.origins ?? [],
      });
      reply.code(201);
      return {
        id: key.id,
        key: secret,
        prefix: key.prefix,
        name: key.name,
        plan: key.plan,
        created_at: formatTimestamp(key.createdAt),
        publishable: key.publishable,
        origins: key.origins,
      };
    },
  );

  app.get(
    "/admin/keys/:id",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "A key with its usage: the current period and the stored ones (reading counts nothing)",
        params: KeyIdParams,
        response: adminResponses(200, KeyWithUsageSchema, [404]),
      },
    },
    async (request) => {
      const usage = await store.usage.keyUsage(request.params.id, clock());
      if (!usage) throw new UnknownKeyError(request.params.id);
      return keyUsageJson(usage);
    },
  );

  app.patch(
    "/admin/keys/:id",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "Move a key to another plan",
        description:
          "The key counts against the new plan's quota at once on this server, within a second on every other process and instance. With the same period length its count carries over; with another one a new period starts.",
        params: KeyIdParams,
        body: MoveKeyBody,
        response: adminResponses(200, KeySchema, [400, 404]),
      },
    },
    async (request) => {
      const key = await store.keys.setKeyPlan(request.params.id, request.body.plan);
      await settle();
      return keyJson(key);
    },
  );

  app.put(
    "/admin/keys/:id/origins",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "Replace a publishable key's origins",
        description:
          "Exact origins, `scheme://host[:port]`, at least one; a secret key has none (400 `invalid_origins`). Applies like a move to another plan.",
        params: KeyIdParams,
        body: KeyOriginsBody,
        response: adminResponses(200, KeySchema, [400, 404]),
      },
    },
    async (request) => {
      const key = await store.keys.setKeyOrigins(request.params.id, request.body.origins);
      await settle();
      return keyJson(key);
    },
  );

  app.post(
    "/admin/keys/:id/revoke",
    {
      schema: {
        ...ADMIN_ROUTE,
        summary: "Revoke a key for good (at once, on every instance)",
        params: KeyIdParams,
        response: adminResponses(200, KeySchema, [404]),
      },
    },
    async (request) => {
      const { id } = request.params;
      const revoked = (await store.keys.revokeKey(id, clock())) ? await store.keys.getKey(id) : undefined;
      if (!revoked) throw new UnknownKeyError(id);
      return keyJson(revoked);
    },
  );
}
