// GET /go/<code or vanity>: the short URL redirect. No authentication on this path: one indexed UPDATE answers it.
import { z } from 'zod';
import { URLS_ROUTE_INTERNAL } from '../http/links.js';
import type { RouteModule } from '../http/types.js';
import { renderUrlPasswordPage } from '../pages/url-password-page.js';
import { followShortUrl, peekShortUrl } from '../services/urls.js';
import { ApiError } from '../http/errors.js';

export const redirectRoutes: RouteModule = (app, ctx) => {
  app.get(
    `${URLS_ROUTE_INTERNAL}/:slug`,
    {
      schema: {
        summary: 'Follow a short URL (302); a password page for protected ones, 404 when disabled, missing or used up',
        tags: ['urls'],
        params: z.object({ slug: z.string().min(1).max(200) }),
        querystring: z.object({ token: z.string().max(2000).optional().describe('from POST /api/user/urls/:id/password') }),
      },
    },
    async (request, reply) => {
      // HEAD (link checkers, chat previews) answers the same without spending a view.
      const follow = request.method === 'HEAD' ? peekShortUrl : followShortUrl;
      const outcome = await follow(ctx, request.params.slug, request.query.token);
      if (outcome.kind === 'missing') throw new ApiError(9002, 'no such short URL');
      if (outcome.kind === 'redirect') {
        return reply.header('cache-control', 'no-store').redirect(outcome.destination, 302);
      }
      const page = renderUrlPasswordPage({ siteTitle: ctx.settings.get().siteTitle, urlId: outcome.urlId });
      return reply
        .code(401)
        .header('cache-control', 'no-store')
        .header('content-security-policy', page.csp)
        .header('x-content-type-options', 'nosniff')
        .type('text/html; charset=utf-8')
        .send(page.html);
    },
  );
};
