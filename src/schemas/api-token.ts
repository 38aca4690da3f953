// Scoped API tokens as the API shows them (POST/GET/DELETE /api/user/tokens). The secret appears only in the answer
// to POST.
import { z } from 'zod';
import { TOKEN_SCOPES } from '../lib/security/token-scopes.js';
import { IsoDateTime } from './common.js';

export const TokenScopeSchema = z.enum(TOKEN_SCOPES).meta({ id: 'TokenScope' });

export const ApiTokenSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(TokenScopeSchema),
    createdAt: IsoDateTime,
    lastUsedAt: IsoDateTime.nullable().describe('updated at most once a minute'),
    expiresAt: IsoDateTime.nullable(),
  })
  .meta({ id: 'ApiToken' });

export const NewApiTokenSchema = z.object({
  name: z.string().trim().min(1).max(100),
  scopes: z.array(TokenScopeSchema).min(1),
  expiresAt: IsoDateTime.nullable().optional().describe('when the token stops working (in the future); none: never'),
});

export const CreatedApiTokenSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(TokenScopeSchema),
    token: z.string().describe('the secret: shown only here, send it in the Authorization header'),
  })
  .meta({ id: 'CreatedApiToken' });
