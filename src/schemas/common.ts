// Small schema pieces shared by many routes.
import { z } from 'zod';

export const IsoDateTime = z.iso.datetime({ offset: true });
export const Id = z.string().min(1).max(64);

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * Any JSON value, as `z.json()` checks it. Named, because a recursive schema needs an id of its own to become an
 * OpenAPI component: unnamed (`z.json()`), its self-reference came out as `__shared#/$defs/schema0`, not a pointer.
 */
export const JsonValueSchema: z.ZodType<JsonValue> = z
  .lazy(() =>
    z.union([
      z.string(),
      z.number(),
      z.boolean(),
      z.null(),
      z.array(JsonValueSchema),
      z.record(z.string(), JsonValueSchema),
    ]),
  )
  .meta({ id: 'JsonValue' });
