// POST /api/auth/register: self-service sign-up (open registration or an invite code); the new user is logged in.
import { z } from 'zod';
import { sessionOrigin, setSessionCookie } from '../../http/auth.js';
import { loginRateLimit } from '../../http/rate-limit.js';
import type { RouteModule } from '../../http/types.js';
import { NewPasswordText, UserSchema } from '../../schemas/user.js';
import { loadUserDto } from '../../services/accounts/account.js';
import { registerAndSignIn } from '../../services/accounts/registration.js';

/** Under /api/auth, for anyone. */
export const registerRoutes: RouteModule = (app, ctx) => {
  app.post(
    '/register',
    {
      config: { rateLimit: loginRateLimit(ctx) },
      schema: {
        summary: 'Register a USER and log them in (sets the session cookie)',
        description:
          'Without code: needs registrationEnabled (1037). With code: needs invitesEnabled (1036) and a live invite ' +
          '(1035 when unknown, expired or used up), and uses it once. A taken username answers 1039 (as Zipline).',
        tags: ['auth'],
        body: z.object({
          username: z.string().min(1).max(128),
          password: NewPasswordText,
          code: z.string().min(1).max(128).optional(),
        }),
        response: { 200: z.object({ user: UserSchema }) },
      },
    },
    async (request, reply) => {
      const { user, secret } = await registerAndSignIn(ctx, request.body, sessionOrigin(request));
      setSessionCookie(request, reply, secret);
      return { user: await loadUserDto(ctx, user) };
    },
  );
};
