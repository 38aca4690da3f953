// POST /api/auth/login, POST (or same-site GET) /api/auth/logout.
import { z } from 'zod';
import { clearSessionCookie, isCrossSite, optionalUser, sessionOrigin, setSessionCookie } from '../http/auth.js';
import { ApiError } from '../lib/errors.js';
import { loginRateLimit } from '../http/rate-limit.js';
import type { RouteModule } from '../http/types.js';
import { UserSchema } from '../schemas/user.js';
import { loadUserDto, loginWithPassword } from '../services/accounts.js';
import { createSession, deleteSession } from '../services/sessions.js';

export const authRoutes: RouteModule = (app, ctx) => {
  app.post(
    '/api/auth/login',
    {
      config: { rateLimit: loginRateLimit(ctx) },
      schema: {
        summary: 'Log in with username and password (and a TOTP code when the account has TOTP)',
        description:
          'Sets the session cookie. When the account has TOTP and no code was given, answers {totp: true} and ' +
          'logs nobody in; send the same request again with code.',
        tags: ['auth'],
        body: z.object({
          username: z.string().min(1).max(128),
          password: z.string().min(1).max(1024),
          code: z.string().max(16).optional(),
        }),
        response: {
          200: z.union([z.object({ user: UserSchema }), z.object({ totp: z.literal(true) })]),
        },
      },
    },
    async (request, reply) => {
      const result = await loginWithPassword(ctx, request.body);
      if (result.kind === 'totp-required') return { totp: true as const };
      const { secret } = await createSession(ctx, result.user.id, sessionOrigin(request));
      setSessionCookie(request, reply, secret);
      return { user: await loadUserDto(ctx, result.user) };
    },
  );

  app.route({
    method: ['POST', 'GET'],
    url: '/api/auth/logout',
    // Another site may not sign the user out: a cross-site GET (a link, an <img>) is refused before anything else,
    // a cross-site POST by the session check of optionalUser.
    onRequest: async (request) => {
      if (request.method === 'GET' && isCrossSite(ctx, request)) {
        throw new ApiError(9001, 'cross-site request refused: sign out from this site');
      }
    },
    preValidation: optionalUser(ctx),
    schema: {
      summary: 'End the current session and clear its cookie (POST; GET from this site only)',
      description: 'A GET or POST that the browser says another site made (Sec-Fetch-Site, Origin) -> 403/9001.',
      tags: ['auth'],
      response: { 200: z.object({ loggedOut: z.boolean() }) },
    },
    handler: async (request, reply) => {
      const session = request.auth?.session;
      if (session) await deleteSession(ctx, session.id);
      clearSessionCookie(reply);
      return { loggedOut: true };
    },
  });
};
