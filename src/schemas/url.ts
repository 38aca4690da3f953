// The short URL resource as the API shows it.
import { z } from 'zod';
import { IsoDateTime } from './common.js';

/** A vanity is one path segment of the redirect link: letters, digits and . _ ~ - (1 to 64 characters). */
export const VanitySchema = z
  .string()
  .regex(/^[A-Za-z0-9._~-]{1,64}$/, 'must be 1 to 64 letters, digits or . _ ~ -')
  .refine((v) => v !== '.' && v !== '..', 'must not be . or ..');

export const DestinationSchema = z.string().min(1).max(8192).describe('an http:// or https:// URL');

export const UrlSchema = z
  .object({
    id: z.string(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    code: z.string(),
    vanity: z.string().nullable(),
    destination: z.string(),
    views: z.number().int(),
    maxViews: z.number().int().nullable(),
    passwordProtected: z.boolean(),
    enabled: z.boolean(),
    userId: z.string().nullable(),
    url: z.string().describe('the short link: <base><urlsRoute>/<vanity or code>'),
  })
  .meta({ id: 'Url' });

export type UrlDto = z.infer<typeof UrlSchema>;
