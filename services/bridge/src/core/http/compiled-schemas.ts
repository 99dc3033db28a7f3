// Decision B80: the route schemas are compiled once per process. Fastify's default compilers
// (Ajv for requests, fast-json-stringify for answers) turn every route's schema into code each
// time an app is built, about 0.1 s of CPU for the bridge's routes. A process that builds the app
// again (a restart in place; the tests, which open hundreds of bridges in a few processes) gets
// the same functions back: a compiled validator or serializer depends only on its schema, the
// shared schemas and the compiler's options, which are the key. The compilers are Fastify's own,
// so what a request is checked against and how an answer is written do not change.
import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler, FastifySerializerCompiler, FastifyServerOptions } from 'fastify';

type Factories = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
// What Fastify calls: (shared schemas, options) => compiler. The packages declare these as unions
// of their Ajv and JTD variants, which the compiler-of-a-compiler below cannot satisfy as written.
type Factory<C> = (external: unknown, options: unknown) => C;
const ajv = AjvCompiler() as unknown as Factory<FastifySchemaCompiler<unknown>>;
const fjs = SerializerSelector() as unknown as Factory<FastifySerializerCompiler<unknown>>;

const validators = new Map<string, ReturnType<FastifySchemaCompiler<unknown>>>();
const serializers = new Map<string, ReturnType<FastifySerializerCompiler<unknown>>>();

/** `compile(route)` once per schema in this context (the shared schemas and the compiler's options). */
function memo<R extends { schema: unknown }, F>(
  cache: Map<string, F>,
  context: string,
  compile: (route: R) => F,
): (route: R) => F {
  return (route) => {
    const key = `${context}\n${JSON.stringify(route.schema)}`;
    let fn = cache.get(key);
    if (!fn) cache.set(key, (fn = compile(route)));
    return fn;
  };
}

const buildValidator: Factory<FastifySchemaCompiler<unknown>> = (external, options) => {
  const compile = memo(
    validators,
    JSON.stringify([external, (options as { customOptions?: unknown } | undefined)?.customOptions]),
    ajv(external, options),
  );
  return (route) => {
    if (route.httpPart === 'headers') {
      const s = route.schema as { properties?: object; required?: string[] };
      const upper = [...Object.keys(s.properties ?? {}), ...(s.required ?? [])].find((n) => n !== n.toLowerCase());
      if (upper)
        throw new Error(`${route.method} ${route.url}: name the header "${upper}" in lower case (decision B80)`);
    }
    return compile(route);
  };
};

const buildSerializer: Factory<FastifySerializerCompiler<unknown>> = (external, options) =>
  memo(serializers, JSON.stringify([external, options]), fjs(external, options));

/**
 * Fastify's compilers behind a process-wide memo. Fastify lower-cases the names in a header schema
 * only for its default compiler, so a header schema here names its headers in lower case already.
 */
export const compiledSchemas = { buildValidator, buildSerializer } as unknown as Factories;
