// GET /api/healthcheck
import { z } from 'zod';
import type { RouteModule } from '../../http/types.js';
import { checkHealth } from '../../services/operations/health.js';

/** Under /api, for anyone. */
export const healthcheckRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/healthcheck',
    {
      schema: {
        summary: 'Whether the server and its database are reachable and working',
        tags: ['server'],
        response: { 200: z.object({ pass: z.boolean() }) },
      },
    },
    () => checkHealth(ctx),
  );
};
