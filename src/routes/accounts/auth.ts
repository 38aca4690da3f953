// POST /api/auth/login (anyone), POST (or same-site GET) /api/auth/logout (the caller when signed in).
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import { clearSessionCookie, isCrossSite, sessionOrigin, setSessionCookie } from '../../http/auth.js';
import { ApiError } from '../../lib/errors.js';
import { loginAttemptsLimit } from '../../http/rate-limit.js';
import { challengeIdOf, relyingParty } from '../../http/webauthn.js';
import { AuthenticationResponseSchema } from '../../schemas/passkey.js';
import type { RouteModule } from '../../http/types.js';
import { PasswordText, UserSchema } from '../../schemas/user.js';
import { loadUserDto } from '../../services/accounts/account.js';
import { deleteSession } from '../../services/accounts/sessions.js';
import { signInWithPasswordOrDirectory } from '../../services/directory/sign-in.js';

/** Under /api/auth, for anyone. */
export const loginRoutes: RouteModule = (app, ctx) => {
  app.post(
    '/login',
    {
      onRequest: loginAttemptsLimit(app, ctx),
      schema: {
        summary: 'Log in with username and password (and a second step when the account has TOTP)',
        description:
          'Sets the session cookie. When the account has TOTP and no second step was given, answers {totp: true} ' +
          '(with passkey: true when a passkey of the account will do too) and logs nobody in; send the same ' +
          'request again with code (a TOTP code, accepted once, or a recovery code; 1045 otherwise) or passkey. ' +
          'Every attempt, second steps included, counts against the login rate limit. With LDAP_URL set, a name ' +
          'that is no account of this server (or one that came from the directory) is checked by the directory, ' +
          'whose first sign-in creates the account (docs/ldap.md); 9001 outside LDAP_ALLOWED_GROUP, 503/9004 ' +
          'while the directory cannot be reached.',
        tags: ['auth'],
        body: z.object({
          username: z.string().min(1).max(128),
          password: PasswordText,
          code: z.string().max(16).optional().describe('a TOTP code or a recovery code'),
          passkey: AuthenticationResponseSchema.optional().describe(
            'instead of a code: a passkey of the account answering GET /api/auth/webauthn/options',
          ),
          challengeId: z.string().max(64).optional().describe('the passkey challenge id, when the cookie is not sent'),
        }),
        response: {
          200: z.union([
            z.object({ user: UserSchema }),
            z.object({
              totp: z.literal(true),
              passkey: z.literal(true).optional().describe("present when one of the account's passkeys will do too"),
            }),
          ]),
        },
      },
    },
    async (request, reply) => {
      const { passkey, challengeId, ...password } = request.body;
      const result = await signInWithPasswordOrDirectory(
        ctx,
        {
          ...password,
          passkey: passkey && {
            challengeId: challengeIdOf(request, challengeId),
            response: passkey as AuthenticationResponseJSON,
          },
        },
        relyingParty(ctx, request),
        sessionOrigin(request),
      );
      if (result.kind === 'totp-required') {
        return result.passkey ? { totp: true as const, passkey: true as const } : { totp: true as const };
      }
      setSessionCookie(request, reply, result.secret);
      return { user: await loadUserDto(ctx, result.user) };
    },
  );
};

/** Under /api/auth, with the caller resolved when signed in. */
export const logoutRoutes: RouteModule = (app, ctx) => {
  app.route({
    method: ['POST', 'GET'],
    url: '/logout',
    // Another site may not sign the user out: a cross-site GET (a link, an <img>) is refused before anything else,
    // a cross-site POST by the session check of the group's optionalUser.
    onRequest: async (request) => {
      if (request.method === 'GET' && isCrossSite(ctx, request)) {
        throw new ApiError(9001, 'cross-site request refused: sign out from this site');
      }
    },
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
