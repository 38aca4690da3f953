// The caller's scoped API tokens: make one (its secret answered once), list them (never with secrets), revoke one.
import { z } from 'zod';
import { caller } from '../../http/auth.js';
import type { RouteModule } from '../../http/types.js';
import { Id } from '../../schemas/common.js';
import { ApiTokenSchema, CreatedApiTokenSchema, NewApiTokenSchema } from '../../schemas/api-token.js';
import { createApiToken, listApiTokens, revokeApiToken } from '../../services/accounts/api-tokens.js';
import { toApiTokenDto } from '../../services/accounts/dto.js';

const tags = ['user'];

/** Under /api/user, for a signed-in user. */
export const userTokenRoutes: RouteModule = (app, ctx) => {
  app.post(
    '/tokens',
    {
      schema: {
        tags,
        summary: 'Make a scoped API token; its secret is in this answer only',
        description:
          'Scopes: upload, files:read, files:write, urls, admin (the routes of each: docs/api.md). A request with the ' +
          'token outside its scopes answers 403/9001; an expired or revoked token 401/2001.',
        body: NewApiTokenSchema,
        response: { 200: CreatedApiTokenSchema },
      },
    },
    async (request) =>
      createApiToken(ctx, caller(request).user.id, {
        name: request.body.name,
        scopes: request.body.scopes,
        expiresAt: request.body.expiresAt ? Date.parse(request.body.expiresAt) : null,
      }),
  );

  app.get(
    '/tokens',
    {
      schema: {
        tags,
        summary: "The caller's scoped API tokens, newest first, without their secrets",
        response: { 200: z.array(ApiTokenSchema) },
      },
    },
    async (request) => (await listApiTokens(ctx, caller(request).user.id)).map(toApiTokenDto),
  );

  app.delete(
    '/tokens/:id',
    {
      schema: {
        tags,
        summary: 'Revoke a scoped API token: it stops working at once (401/2001)',
        params: z.object({ id: Id }),
        response: { 200: ApiTokenSchema },
      },
    },
    async (request) => toApiTokenDto(await revokeApiToken(ctx, caller(request).user.id, request.params.id)),
  );
};
