// The current user: GET/PATCH /api/user, the API token, and the user's sessions.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { caller, requireUser, type Authenticated } from '../../http/auth.js';
import { guardedRoute } from '../../http/openapi.js';
import { loginAttemptsLimit } from '../../http/rate-limit.js';
import type { RouteModule } from '../../http/types.js';
import { SessionListSchema, UserSchema, UserViewSettingsSchema, UserWithTokenSchema } from '../../schemas/user.js';
import { loadUserDto, regenerateToken, revealToken, updateProfile } from '../../services/accounts/accounts.js';
import { toSessionDto } from '../../services/accounts/dto.js';
import { listSessions, revokeOtherSessions, revokeSession } from '../../services/accounts/sessions.js';

const tags = ['user'];

export const userRoutes: RouteModule = (app, ctx) => {
  const guarded = guardedRoute(requireUser(ctx), tags);

  async function sessionsOf({ user, session }: Authenticated) {
    const sessions = await listSessions(ctx, user.id);
    return {
      current: session ? toSessionDto(session) : null,
      other: sessions.filter((s) => s.id !== session?.id).map(toSessionDto),
    };
  }

  app.get(
    '/api/user',
    guarded({
      summary: 'The authenticated user and their API token',
      response: { 200: UserWithTokenSchema },
    }),
    async (request) => {
      const { user } = caller(request);
      return { user: await loadUserDto(ctx, user), token: revealToken(ctx, user) };
    },
  );

  // A request that checks the current password (currentPassword) is a guess at it: it counts against the login
  // attempts (10 a minute per address), so that a stolen session cannot try passwords at full speed.
  const loginAttempts = loginAttemptsLimit(app, ctx);
  app.patch(
    '/api/user',
    {
      preHandler: async (request: FastifyRequest, reply: FastifyReply) => {
        if ((request.body as { currentPassword?: unknown } | undefined)?.currentPassword !== undefined)
          await loginAttempts(request, reply);
      },
      ...guarded({
        summary: 'Update the authenticated user; missing properties stay, view merges property by property',
        description:
          'A new password also replaces the API token (the answer carries the new one) and signs out every other ' +
          'session.',
        body: z.object({
          username: z.string().min(1).max(128).optional(),
          password: z.string().min(1).max(1024).optional(),
          currentPassword: z
            .string()
            .max(1024)
            .optional()
            .describe(
              'required with password from a session (1067 when missing, 1066 when wrong, 1068 when the account has ' +
                'none yet: leave it out to set a first password); checked when given with the API token',
            ),
          avatar: z.string().max(2_000_000).nullable().optional().describe('base64 image, or null to remove'),
          view: UserViewSettingsSchema.optional(),
        }),
        response: { 200: UserWithTokenSchema },
      }),
    },
    async (request) => {
      const { user, session } = caller(request);
      const updated = await updateProfile(ctx, user, request.body, session?.id ?? null);
      return { user: await loadUserDto(ctx, updated), token: revealToken(ctx, updated) };
    },
  );

  app.get(
    '/api/user/token',
    guarded({
      summary: "The user's API token",
      response: { 200: z.object({ token: z.string() }) },
    }),
    async (request) => ({ token: revealToken(ctx, caller(request).user) }),
  );

  app.patch(
    '/api/user/token',
    guarded({
      summary: 'Regenerate the API token; the old one stops working at once',
      response: { 200: z.object({ user: UserSchema, token: z.string() }) },
    }),
    async (request) => {
      const updated = await regenerateToken(ctx, caller(request).user.id);
      return { user: await loadUserDto(ctx, updated), token: revealToken(ctx, updated) };
    },
  );

  app.get(
    '/api/user/sessions',
    guarded({
      summary: "The caller's current session and their other sessions",
      response: { 200: SessionListSchema },
    }),
    async (request) => sessionsOf(caller(request)),
  );

  app.delete(
    '/api/user/sessions',
    guarded({
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
    }),
    async (request) => {
      const { user, session } = caller(request);
      if ('sessionId' in request.body) await revokeSession(ctx, user.id, session?.id, request.body.sessionId);
      else {
        await revokeOtherSessions(ctx, user.id, session?.id);
        if (request.body.rotateToken) await regenerateToken(ctx, user.id);
      }
      return sessionsOf(caller(request));
    },
  );
};
