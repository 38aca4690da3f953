// The tag resource as the API shows it.
import { z } from 'zod';
import { IsoDateTime } from './common.js';

export const TagNameSchema = z.string().trim().min(1).max(64);
export const TagColorSchema = z
  .string()
  .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex colour such as #1c7ed6')
  .transform((c) => c.toLowerCase());

export const TagSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    color: z.string(),
    userId: z.string(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    files: z.number().int().describe("how many of the user's files carry the tag"),
  })
  .meta({ id: 'Tag' });

export type TagDto = z.infer<typeof TagSchema>;
