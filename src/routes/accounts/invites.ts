// Invites: admins list, create, read and delete them (/api/auth/invites); the register page looks a code up
// without logging in (/api/auth/invites/web/:code), learning whether it can be used but not who made it.
import { z } from 'zod';
import { caller } from '../../http/auth.js';
import { loginRateLimit } from '../../http/rate-limit.js';
import type { RouteModule } from '../../http/types.js';
import { Id, IsoDateTime } from '../../schemas/common.js';
import { RoleSchema } from '../../schemas/user.js';
import { isApiError } from '../../lib/errors.js';
import {
  createInvite,
  deleteInvite,
  getInvite,
  listInvites,
  lookUpInviteCode,
} from '../../services/accounts/invites.js';

const tags = ['invites'];

const InviteSchema = z
  .object({
    id: z.string(),
    code: z.string(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    expiresAt: IsoDateTime.nullable(),
    maxUses: z.number().int().nullable(),
    uses: z.number().int(),
    inviterId: z.string().nullable(),
    inviter: z.object({ id: z.string(), username: z.string(), role: RoleSchema }).nullable(),
  })
  .meta({ id: 'Invite' });

const PublicInviteSchema = z
  .object({
    code: z.string(),
    expiresAt: IsoDateTime.nullable(),
    maxUses: z.number().int().nullable(),
    uses: z.number().int(),
  })
  .meta({ id: 'PublicInvite' });

const Params = z.object({ id: Id });

/** Under /api/auth/invites, for admins. */
export const inviteRoutes: RouteModule = (app, ctx) => {
  app.get(
    '',
    { schema: { tags, summary: 'Every invite, newest first', response: { 200: z.array(InviteSchema) } } },
    async () => listInvites(ctx),
  );

  app.post(
    '',
    {
      schema: {
        tags,
        summary: 'Create an invite (1036 while invites are disabled)',
        description: 'The code has settings.invitesCodeLength characters.',
        body: z.object({
          expiresAt: z
            .string()
            .max(64)
            .nullable()
            .optional()
            .describe('ISO date-time, a duration from now such as 7d, or "never" (the default)'),
          maxUses: z.number().int().min(1).nullable().optional().describe('unlimited when absent or null'),
        }),
        response: { 200: InviteSchema },
      },
    },
    async (request) => createInvite(ctx, caller(request).user.id, request.body),
  );

  app.get(
    '/:id',
    {
      schema: {
        tags,
        summary: 'One invite, by id or code (4005 when neither matches)',
        params: Params,
        response: { 200: InviteSchema },
      },
    },
    async (request) => getInvite(ctx, request.params.id),
  );

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Delete an invite (4004 when unknown, 6000 when the database refuses)',
        params: Params,
        response: { 200: InviteSchema },
      },
    },
    async (request) => deleteInvite(ctx, request.params.id),
  );
};

/** Under /api/auth, for anyone: the register page's look-ups of a code. */
export const inviteLookupRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/invites/web/:code',
    {
      config: { rateLimit: loginRateLimit(ctx) },
      schema: {
        summary: 'Public look-up of an invite code for the register page',
        description: 'Invites disabled -> 1036, unknown code -> 4005, expired or used up -> 1035.',
        tags,
        params: z.object({ code: z.string().min(1).max(128) }),
        response: { 200: PublicInviteSchema },
      },
    },
    async (request) => lookUpInviteCode(ctx, request.params.code),
  );

  // Zipline's look-up: ?code=, answered {invite} with the invite or null, never an error (an open route must not
  // say more than "no such invite" either way).
  app.get(
    '/invites/web',
    {
      config: { rateLimit: loginRateLimit(ctx) },
      schema: {
        summary: "Zipline's public look-up of an invite code: {invite} (null when unknown, used up, expired or off)",
        tags,
        querystring: z.object({ code: z.string().max(128).optional() }),
        response: { 200: z.object({ invite: PublicInviteSchema.nullable() }) },
      },
    },
    async (request) => {
      const code = request.query.code;
      if (code === undefined || code === '') return { invite: null };
      try {
        return { invite: await lookUpInviteCode(ctx, code) };
      } catch (err) {
        if (isApiError(err) && err.statusCode < 500) return { invite: null };
        throw err;
      }
    },
  );
};
