// GET /api/setup, POST /api/setup: first-time setup creates the SUPERADMIN.
import { z } from 'zod';
import { sessionOrigin, setSessionCookie } from '../../http/auth.js';
import type { RouteModule } from '../../http/types.js';
import { UserSchema } from '../../schemas/user.js';
import { completeFirstSetup, isFirstSetup, loadUserDto } from '../../services/accounts/accounts.js';
import { createSession } from '../../services/accounts/sessions.js';
import { loginRateLimit } from '../../http/rate-limit.js';

export const setupRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/api/setup',
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
    '/api/setup',
    {
      config: { rateLimit: loginRateLimit(ctx) },
      schema: {
        summary: 'Create the initial SUPERADMIN (refused with 9001 once setup is complete)',
        tags: ['setup'],
        body: z.object({ username: z.string().min(1).max(128), password: z.string().min(1).max(1024) }),
        response: { 200: z.strictObject({ firstSetup: z.boolean(), user: UserSchema }) },
      },
    },
    async (request, reply) => {
      const user = await completeFirstSetup(ctx, request.body);
      // The new owner is logged in at once, so that a dashboard can carry on without a second step.
      const { secret } = await createSession(ctx, user.id, sessionOrigin(request));
      setSessionCookie(request, reply, secret);
      return { firstSetup: false, user: await loadUserDto(ctx, user) };
    },
  );
};
