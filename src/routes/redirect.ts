// GET /go/<code or vanity>: the short URL redirect. No authentication on this path: one indexed UPDATE answers it.
// A protected link answers a password form, posted back to the link (POST /go/<slug>): the right password -> 303 to
// the link with ?token=, which then redirects; a wrong one -> the form again, saying so.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { URLS_ROUTE_INTERNAL } from '../http/links.js';
import { urlLink } from '../lib/links.js';
import {
  acceptFormBodies,
  pageErrorHandler,
  passwordFormErrorHandler,
  passwordFormSchema,
  sendPage,
} from '../http/pages.js';
import { passwordGuessGuard } from '../http/rate-limit.js';
import type { RouteModule } from '../http/types.js';
import { renderUrlPasswordPage } from '../pages/url-password-page.js';
import { followShortUrl, peekShortUrl, unlockUrl } from '../services/urls.js';
import { ApiError } from '../lib/errors.js';

const params = z.object({ slug: z.string().min(1).max(200) });

export const redirectRoutes: RouteModule = async (app, ctx) => {
  app.get(
    `${URLS_ROUTE_INTERNAL}/:slug`,
    {
      schema: {
        summary: 'Follow a short URL (302); a password page for protected ones, 404 when disabled, missing or used up',
        tags: ['urls'],
        params,
        querystring: z.object({
          token: z.string().max(2000).optional().describe('from POST /api/user/urls/:id/password'),
        }),
      },
      // A browser following a dead link reads why on a page; other clients get the JSON error.
      errorHandler: pageErrorHandler(ctx),
    },
    async (request, reply) => {
      // HEAD (link checkers, chat previews) answers the same without spending a view (and, for a view-limited
      // link, without its Location).
      const follow = request.method === 'HEAD' ? peekShortUrl : followShortUrl;
      const outcome = await follow(ctx, request.params.slug, request.query.token);
      if (outcome.kind === 'missing') throw new ApiError(9002, 'no such short URL');
      if (outcome.kind === 'redirect') {
        reply.header('cache-control', 'no-store');
        // A HEAD spends no view: of a view-limited link it must not tell where the link leads either.
        if (outcome.limited === true) return reply.code(302).send();
        return reply.redirect(outcome.destination, 302);
      }
      return sendPage(reply, renderUrlPasswordPage({ siteTitle: ctx.settings.get().siteTitle }), 401);
    },
  );

  await app.register(async (plugin) => {
    acceptFormBodies(plugin);
    // Guesses: 10 a minute per link and address, counted together with the API's unlock endpoint
    // (POST /api/user/urls/:id/password).
    plugin.withTypeProvider<ZodTypeProvider>().post(
      `${URLS_ROUTE_INTERNAL}/:slug`,
      {
        schema: passwordFormSchema(
          'The password form of a protected short URL: the right password -> 303 to the link with ?token=',
          'urls',
          params,
        ),
        errorHandler: passwordFormErrorHandler(ctx, (_request, failure) =>
          renderUrlPasswordPage({ siteTitle: ctx.settings.get().siteTitle, failure }),
        ),
      },
      async (request, reply) => {
        const { slug } = request.params;
        const outcome = await peekShortUrl(ctx, slug);
        if (outcome.kind === 'missing') throw new ApiError(9002, 'no such short URL');
        const back = urlLink(ctx.settings.get(), '', slug);
        if (outcome.kind === 'redirect')
          return reply.code(303).header('cache-control', 'no-store').header('location', back).send();
        const password = request.body.password ?? '';
        if (password === '')
          return sendPage(
            reply,
            renderUrlPasswordPage({ siteTitle: ctx.settings.get().siteTitle, failure: 'empty' }),
            403,
          );
        const { token } = await unlockUrl(ctx, outcome.urlId, password, passwordGuessGuard(request, 'url'));
        return reply
          .code(303)
          .header('cache-control', 'no-store')
          .header('location', `${back}?token=${encodeURIComponent(token)}`)
          .send();
      },
    );
  });
};
