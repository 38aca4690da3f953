// Signing in with a passkey alone: GET /api/auth/webauthn/options, POST /api/auth/webauthn.
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import { sessionOrigin, setSessionCookie } from '../../http/auth.js';
import { loginAttemptsLimit, loginRateLimit } from '../../http/rate-limit.js';
import type { RouteModule } from '../../http/types.js';
import { challengeIdOf, clearChallengeCookie, relyingParty, setChallengeCookie } from '../../http/webauthn.js';
import { AuthenticationResponseSchema } from '../../schemas/passkey.js';
import { UserSchema } from '../../schemas/user.js';
import { loadUserDto } from '../../services/accounts/account.js';
import { loginOptions, signInWithPasskey } from '../../services/accounts/passkeys.js';

/** Under /api/auth, for anyone. */
export const authWebauthnRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/webauthn/options',
    {
      config: { rateLimit: { ...loginRateLimit(ctx), groupId: 'webauthn-options', max: 30 } },
      schema: {
        summary: 'Options for signing in with a passkey (PublicKeyCredentialRequestOptionsJSON)',
        description:
          'Sets the webauthn-challenge-id cookie (5 minutes) that POST /api/auth/webauthn, or the passkey step of ' +
          'POST /api/auth/login, answers; `id` is the same value for clients without cookies. 9001 while the ' +
          'server setting mfaPasskeys is off.',
        tags: ['auth'],
        response: { 200: z.object({ id: z.string(), options: z.looseObject({ challenge: z.string() }) }) },
      },
    },
    async (request, reply) => {
      const { id, options } = await loginOptions(ctx, relyingParty(ctx, request));
      setChallengeCookie(request, reply, id);
      return { id, options: { ...options } };
    },
  );

  app.post(
    '/webauthn',
    {
      onRequest: loginAttemptsLimit(app, ctx),
      schema: {
        summary: 'Sign in with a passkey, without a password',
        description:
          'The passkey must verify its user (PIN, biometrics): it stands for both steps of a password login. Sets ' +
          'the session cookie. 1046 without a live challenge (cookie or id), 1047 without response, 1051 when the ' +
          'verification rejects the answer (challenge, origin, signature counter, no user verification), 1052 for ' +
          'an unknown passkey or a bad signature, 1060 for a passkey stored in a legacy format. Counts against the ' +
          'login rate limit.',
        tags: ['auth'],
        body: z.object({
          response: AuthenticationResponseSchema.optional(),
          id: z.string().max(64).optional().describe('the challenge id, when the cookie is not sent'),
        }),
        response: { 200: z.object({ user: UserSchema }) },
      },
    },
    async (request, reply) => {
      const { user, secret } = await signInWithPasskey(
        ctx,
        relyingParty(ctx, request),
        {
          challengeId: challengeIdOf(request, request.body.id),
          response: request.body.response as AuthenticationResponseJSON | undefined,
        },
        sessionOrigin(request),
      );
      clearChallengeCookie(reply);
      setSessionCookie(request, reply, secret);
      return { user: await loadUserDto(ctx, user) };
    },
  );
};
