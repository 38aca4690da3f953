// GET /api/readyz: whether a load balancer should send this instance requests (false while it drains at shutdown).
import { z } from 'zod';
import type { RouteModule } from '../../http/types.js';
import { checkReadiness } from '../../services/operations/readiness.js';

const ReadinessSchema = z.object({
  ready: z.boolean(),
  reason: z
    .enum(['draining', 'database'])
    .optional()
    .describe('draining: the instance is shutting down; database: the database does not answer'),
});

/** Under /api, for anyone. */
export const readinessRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Whether this instance should be sent requests (for load balancers)',
        description:
          '200 {ready: true} while the instance serves; 503 {ready: false, reason} while it drains before stopping ' +
          '(SIGTERM) or when its database does not answer. Liveness is /api/healthcheck.',
        tags: ['server'],
        response: { 200: ReadinessSchema, 503: ReadinessSchema },
      },
    },
    async (_request, reply) => {
      const readiness = await checkReadiness(ctx);
      return reply.code(readiness.ready ? 200 : 503).send(readiness);
    },
  );
};
