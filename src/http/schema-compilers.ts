/**
 * Fastify's own schema compilers (Ajv for what comes in, fast-json-stringify for what
 * goes out), kept by the process rather than by each app. Fastify makes a new pair for
 * every instance it builds, so every app compiled every route's schemas again: some
 * 100 ms of CPU an app, most of an in-process test's set-up. The route schemas are the
 * modules' constants, so an app built again in the same process finds them compiled:
 * Ajv instances are pooled by the shared schemas and options (the pool Fastify keeps per
 * instance, kept here once), and a response serializer is kept by its schema object (a
 * schema made anew each time is compiled anew, and dropped with it).
 *
 * Only the factories change, not what they compile: the same Ajv options and plugins,
 * the same serializers, byte for byte.
 */
import { AjvCompiler } from "@fastify/ajv-compiler";
import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";
import type { FastifyServerOptions } from "fastify";

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]
>;
type BuildSerializer = NonNullable<CompilersFactory["buildSerializer"]>;
type Serializer = (document: unknown) => string;

const buildValidator = AjvCompiler();
const serializerFactory = SerializerSelector();
/** Serializers by response schema, then by the shared schemas and options they were built with. */
const serializers = new WeakMap<object, Map<string, Serializer>>();

const buildSerializer: BuildSerializer = (externalSchemas, options) => {
  const compile = serializerFactory(externalSchemas, options);
  const context = JSON.stringify([externalSchemas ?? {}, options ?? {}]);
  return (route) => {
    const { schema } = route;
    if (typeof schema !== "object" || schema === null) return compile(route);
    let byContext = serializers.get(schema);
    if (!byContext) {
      byContext = new Map();
      serializers.set(schema, byContext);
    }
    let serializer = byContext.get(context);
    if (!serializer) {
      serializer = compile(route);
      byContext.set(context, serializer);
    }
    return serializer;
  };
};

/** The `schemaController` option of every Fastify instance the process builds. */
export const sharedSchemaCompilers = {
  compilersFactory: { buildValidator, buildSerializer },
} as const satisfies FastifyServerOptions["schemaController"];
