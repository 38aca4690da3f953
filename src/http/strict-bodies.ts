// Request bodies are read strictly: a JSON body key that a route does not know is refused with 1000 naming it
// ('body: Unrecognized key: "isPublic"'), never dropped in silence. A Zipline client whose key Chute does not take
// learns so instead of seeing the request half done. Routes name the Zipline keys they understand in their schemas;
// a schema that wants other keys says so with z.looseObject (a catchall), which is left as it is.
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

const strictened = new WeakMap<z.ZodType, z.ZodType>();

/** `schema` with every plain object in it (at any depth, through optional, nullable, default and arrays) strict. */
export function strictSchema(schema: z.ZodType): z.ZodType {
  const known = strictened.get(schema);
  if (known) return known;
  let result: z.ZodType = schema;
  if (schema instanceof z.ZodObject) {
    const def = schema.def;
    const shape = Object.fromEntries(
      Object.entries(def.shape as Record<string, z.ZodType>).map(([key, value]) => [key, strictSchema(value)]),
    );
    result = def.catchall === undefined ? schema.clone({ ...def, shape, catchall: z.never() }) : schema;
  } else if (schema instanceof z.ZodOptional) {
    result = strictSchema(schema.unwrap() as z.ZodType).optional();
  } else if (schema instanceof z.ZodNullable) {
    result = strictSchema(schema.unwrap() as z.ZodType).nullable();
  } else if (schema instanceof z.ZodArray) {
    result = schema.clone({ ...schema.def, element: strictSchema(schema.element as z.ZodType) });
  } else if (schema instanceof z.ZodPipe) {
    result = schema.clone({ ...schema.def, in: strictSchema(schema.def.in as z.ZodType) });
  } else if (schema instanceof z.ZodUnion) {
    result = schema.clone({ ...schema.def, options: schema.options.map((o) => strictSchema(o as z.ZodType)) });
  }
  strictened.set(schema, result);
  return result;
}

/** The zod validator compiler, with bodies read strictly (see the module comment). */
export const strictBodyValidatorCompiler: FastifySchemaCompiler<z.ZodType> = (route) =>
  validatorCompiler({ ...route, schema: route.httpPart === 'body' ? strictSchema(route.schema) : route.schema });
