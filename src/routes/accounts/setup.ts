// GET /api/setup, POST /api/setup: first-time setup creates the SUPERADMIN.
import { z } from 'zod';
import { sessionOrigin, setSessionCookie } from '../../http/auth.js';
import type { RouteModule } from '../../http/types.js';
import { NewPasswordText, UserSchema } from '../../schemas/user.js';
import { completeFirstSetupSignedIn, isFirstSetup, loadUserDto } from '../../services/accounts/account.js';
import { loginRateLimit } from '../../http/rate-limit.js';

/** Under /api/setup, for anyone. */
export const setupRoutes: RouteModule = (app, ctx) => {
  app.get(
    '',
    {
      schema: {
        summary: 'Whether the service is in first-time setup mode',
        tags: ['setup'],
        response: { 200: z.object({ firstSetup: z.boolean() }) },
      },
    },
    async () => ({ firstSetup: await isFirstSetup(ctx) }),
  );

  app.post(
    '',
    {
      config: { rateLimit: loginRateLimit(ctx) },
      schema: {
        summary: 'Create the initial SUPERADMIN (refused with 9001 once setup is complete)',
        tags: ['setup'],
        body: z.object({ username: z.string().min(1).max(128), password: NewPasswordText }),
        response: { 200: z.strictObject({ firstSetup: z.boolean(), user: UserSchema }) },
      },
    },
    async (request, reply) => {
      const { user, secret } = await completeFirstSetupSignedIn(ctx, request.body, sessionOrigin(request));
      setSessionCookie(request, reply, secret);
      return { firstSetup: false, user: await loadUserDto(ctx, user) };
    },
  );
};
