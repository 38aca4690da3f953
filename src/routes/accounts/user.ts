// The current user: GET/PATCH /api/user, the API token, and the user's sessions.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { caller } from '../../http/auth.js';
import { loginAttemptsLimit } from '../../http/rate-limit.js';
import type { RouteModule } from '../../http/types.js';
import {
  NewPasswordText,
  SessionListSchema,
  UserSchema,
  UserViewSettingsSchema,
  UserWithTokenSchema,
} from '../../schemas/user.js';
import type { SessionRow } from '../../db/schema/tables.js';
import { PASSWORD_MAX_UNITS } from '../../lib/security/password-rules.js';
import {
  loadUserDto,
  regenerateToken,
  revealToken,
  signOutSessions,
  updateProfile,
} from '../../services/accounts/account.js';
import { toSessionDto } from '../../services/accounts/dto.js';
import { listSessions } from '../../services/accounts/sessions.js';

const tags = ['user'];

/** The answer of /api/user/sessions: the caller's `current` session apart from the others. */
function sessionList(current: SessionRow | null, sessions: SessionRow[]) {
  return {
    current: current ? toSessionDto(current) : null,
    other: sessions.filter((s) => s.id !== current?.id).map(toSessionDto),
  };
}

/** Under /api/user, for a signed-in user. */
export const userRoutes: RouteModule = (app, ctx) => {
  app.get(
    '',
    { schema: { tags, summary: 'The authenticated user and their API token', response: { 200: UserWithTokenSchema } } },
    async (request) => {
      const { user } = caller(request);
      return { user: await loadUserDto(ctx, user), token: revealToken(ctx, user) };
    },
  );

  // A request that checks the current password (currentPassword) is a guess at it: it counts against the login
  // attempts (10 a minute per address), so that a stolen session cannot try passwords at full speed.
  const loginAttempts = loginAttemptsLimit(app, ctx);
  app.patch(
    '',
    {
      preHandler: async (request: FastifyRequest, reply: FastifyReply) => {
        if ((request.body as { currentPassword?: unknown } | undefined)?.currentPassword !== undefined)
          await loginAttempts(request, reply);
      },
      schema: {
        tags,
        summary: 'Update the authenticated user; missing properties stay, view merges property by property',
        description:
          'A new password also replaces the API token (the answer carries the new one) and signs out every other ' +
          'session.',
        body: z.object({
          username: z.string().min(1).max(128).optional(),
          password: NewPasswordText.optional(),
          currentPassword: z
            .string()
            .max(PASSWORD_MAX_UNITS)
            .optional()
            .describe(
              'required with password from a session (1067 when missing, 1066 when wrong, 1068 when the account has ' +
                'none yet: leave it out to set a first password); checked when given with the API token',
            ),
          avatar: z.string().max(2_000_000).nullable().optional().describe('base64 image, or null to remove'),
          view: UserViewSettingsSchema.optional(),
        }),
        response: { 200: UserWithTokenSchema },
      },
    },
    async (request) => {
      const { user, session } = caller(request);
      const updated = await updateProfile(ctx, user, request.body, session?.id ?? null);
      return { user: await loadUserDto(ctx, updated), token: revealToken(ctx, updated) };
    },
  );

  app.get(
    '/token',
    { schema: { tags, summary: "The user's API token", response: { 200: z.object({ token: z.string() }) } } },
    async (request) => ({ token: revealToken(ctx, caller(request).user) }),
  );

  app.patch(
    '/token',
    {
      schema: {
        tags,
        summary: 'Regenerate the API token; the old one stops working at once',
        response: { 200: z.object({ user: UserSchema, token: z.string() }) },
      },
    },
    async (request) => {
      const updated = await regenerateToken(ctx, caller(request).user.id);
      return { user: await loadUserDto(ctx, updated), token: revealToken(ctx, updated) };
    },
  );

  app.get(
    '/sessions',
    {
      schema: {
        tags,
        summary: "The caller's current session and their other sessions",
        response: { 200: SessionListSchema },
      },
    },
    async (request) => {
      const { user, session } = caller(request);
      return sessionList(session, await listSessions(ctx, user.id));
    },
  );

  app.delete(
    '/sessions',
    {
      schema: {
        tags,
        summary: 'Revoke one session ({sessionId}) or all other sessions ({all: true})',
        description:
          'Sign out everywhere: {all: true, rotateToken: true} also replaces the API token (read the new one with ' +
          'GET /api/user/token), so that nothing signed in before keeps access.',
        body: z.union([
          z.object({ sessionId: z.string().min(1) }),
          z.object({
            all: z.literal(true),
            rotateToken: z.boolean().optional().describe('also replace the API token; the old one stops working'),
          }),
        ]),
        response: { 200: SessionListSchema },
      },
    },
    async (request) => {
      const { user, session } = caller(request);
      return sessionList(session, await signOutSessions(ctx, user.id, session?.id, request.body));
    },
  );
};
