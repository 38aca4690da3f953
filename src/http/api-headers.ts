// Headers of every /api/* answer, errors included: answers can carry the API token or private data, so no cache
// (browser, proxy) keeps them, and no browser reads them as anything but their declared type. A route that serves
// stored bytes to their owner (its own Cache-Control) may set another.
import type { FastifyInstance } from 'fastify';

export const API_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

export function registerApiHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.url !== '/api' && !request.url.startsWith('/api/')) return;
    reply.headers(API_HEADERS);
  });
}
