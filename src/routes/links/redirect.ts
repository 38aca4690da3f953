// GET /go/<code or vanity>: the short URL redirect. No authentication on this path: one indexed UPDATE answers it.
// A protected link answers a password form, posted back to the link (POST /go/<slug>): the right password -> 303 to
// the link with ?token=, which then redirects; a wrong one -> the form again, saying so. Zipline's address of that form,
// /view/url/<id>, shows the same form (links made by Zipline, bookmarks) and sends a visitor on to /go/<slug>.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { URLS_ROUTE_INTERNAL } from '../../http/links.js';
import { urlLink } from '../../lib/text/links.js';
import {
  acceptFormBodies,
  pageErrorHandler,
  passwordFormErrorHandler,
  passwordFormSchema,
  sendPage,
} from '../../http/serving/pages.js';
import { passwordGuessGuard } from '../../http/rate-limit.js';
import type { RouteModule } from '../../http/types.js';
import { renderUrlPasswordPage } from '../../pages/url-password-page.js';
import { followShortUrl, peekShortUrl, shortUrlForView, unlockUrl } from '../../services/links/short-urls.js';
import { ApiError } from '../../lib/errors.js';

const params = z.object({ slug: z.string().min(1).max(200) });
const viewParams = z.object({ id: z.string().min(1).max(200).describe('the URL id (or its code or vanity)') });
const tokenQuery = z.object({
  token: z.string().max(2000).optional().describe('from POST /api/user/urls/:id/password'),
});

export const redirectRoutes: RouteModule = async (app, ctx) => {
  /**
   * A posted password form of the URL `urlId` (null: it has no password), whose short link is /go/<slug>: the right
   * password -> 303 to the link with ?token=; none -> the form again (403); a wrong one -> the error handler's form.
   */
  const answerPasswordForm = async (
    request: FastifyRequest,
    reply: FastifyReply,
    form: { password?: string | undefined; slug: string; urlId: string | null },
  ) => {
    const { slug, urlId } = form;
    const back = urlLink(ctx.settings.get(), '', slug);
    if (urlId === null) return reply.code(303).header('cache-control', 'no-store').header('location', back).send();
    const password = form.password ?? '';
    if (password === '')
      return sendPage(reply, renderUrlPasswordPage({ siteTitle: ctx.settings.get().siteTitle, failure: 'empty' }), 403);
    const { token } = await unlockUrl(ctx, urlId, password, passwordGuessGuard(request, 'url'));
    return reply
      .code(303)
      .header('cache-control', 'no-store')
      .header('location', `${back}?token=${encodeURIComponent(token)}`)
      .send();
  };

  app.get(
    `${URLS_ROUTE_INTERNAL}/:slug`,
    {
      schema: {
        summary: 'Follow a short URL (302); a password page for protected ones, 404 when disabled, missing or used up',
        tags: ['urls'],
        params,
        querystring: tokenQuery,
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

  app.get(
    '/view/url/:id',
    {
      schema: {
        summary: "Zipline's password page of a protected short URL (by id, code or vanity)",
        description:
          'Protected: the password form (401), posted back here. With a valid ?token=, or for a URL without a ' +
          'password: 302 to the short link. Missing, disabled or used up: 404.',
        tags: ['urls'],
        params: viewParams,
        querystring: tokenQuery,
      },
      errorHandler: pageErrorHandler(ctx),
    },
    async (request, reply) => {
      const { token } = request.query;
      const outcome = await shortUrlForView(ctx, request.params.id, token);
      if (outcome.kind === 'missing') throw new ApiError(9002, 'no such short URL');
      if (outcome.kind === 'password')
        return sendPage(reply, renderUrlPasswordPage({ siteTitle: ctx.settings.get().siteTitle }), 401);
      const link = urlLink(ctx.settings.get(), '', outcome.slug);
      const location = token ? `${link}?token=${encodeURIComponent(token)}` : link;
      return reply.code(302).header('cache-control', 'no-store').header('location', location).send();
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
        return answerPasswordForm(request, reply, {
          password: request.body.password,
          slug,
          urlId: outcome.kind === 'password' ? outcome.urlId : null,
        });
      },
    );

    plugin.withTypeProvider<ZodTypeProvider>().post(
      '/view/url/:id',
      {
        schema: passwordFormSchema(
          "The password form of Zipline's /view/url/:id: the right password -> 303 to the short link with ?token=",
          'urls',
          viewParams,
        ),
        errorHandler: passwordFormErrorHandler(ctx, (_request, failure) =>
          renderUrlPasswordPage({ siteTitle: ctx.settings.get().siteTitle, failure }),
        ),
      },
      async (request, reply) => {
        const outcome = await shortUrlForView(ctx, request.params.id);
        if (outcome.kind === 'missing') throw new ApiError(9002, 'no such short URL');
        return answerPasswordForm(request, reply, {
          password: request.body.password,
          slug: outcome.slug,
          urlId: outcome.kind === 'password' ? outcome.urlId : null,
        });
      },
    );
  });
};
