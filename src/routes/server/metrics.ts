// GET /metrics: Prometheus's scrape (services/statistics/prometheus.ts), off until the metricsToken setting holds the bearer
// token every scrape must send. Not part of the API document: Prometheus reads its own text format.
import type { RouteModule } from '../../http/types.js';
import { authorizeScrape, prometheusExposition } from '../../services/statistics/prometheus.js';

export const metricsRoutes: RouteModule = (app, ctx) => {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    authorizeScrape(ctx, request.headers.authorization);
    const { contentType, text } = await prometheusExposition(ctx);
    return reply.header('cache-control', 'no-store').type(contentType).send(text);
  });
};
