// GET /go/<code or vanity>: the short URL redirect. No authentication on this path: one indexed UPDATE answers it.
// A protected link answers a password form, posted back to the link (POST /go/<slug>): the right password -> 303 to
// the link with ?token=, which then redirects; a wrong one -> the form again, saying so. Zipline's address of that form,
// /view/url/<id>, shows the same form (links made by Zipline, bookmarks) and sends a visitor on to /go/<slug>.
import type { FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { URLS_ROUTE_INTERNAL } from '../../http/links.js';
import { urlLink } from '../../lib/text/links.js';
import {
  acceptFormBodies,
  pageErrorHandler,
  passwordFormErrorHandler,
  passwordFormSchema,
  sendPasswordForm,
} from '../../http/serving/pages.js';
import { passwordGuessGuard } from '../../http/rate-limit.js';
import { sendRedirect } from '../../http/serving/send-redirect.js';
import type { RouteModule } from '../../http/types.js';
import { renderUrlPasswordPage } from '../../pages/url-password-page.js';
import {
  followShortUrl,
  peekShortUrl,
  shortUrlForView,
  submitUrlPasswordForm,
  type UrlPasswordFormOutcome,
} from '../../services/links/short-urls.js';
import { ApiError } from '../../lib/errors.js';

const params = z.object({ slug: z.string().min(1).max(200) });
const viewParams = z.object({ id: z.string().min(1).max(200).describe('the URL id (or its code or vanity)') });
const tokenQuery = z.object({
  token: z.string().max(2000).optional().describe('from POST /api/user/urls/:id/password'),
});

/** For anyone, in a group without prefix (full URLs). */
export const redirectRoutes: RouteModule = async (app, ctx) => {
  /**
   * The answer to a posted password form: the right password -> 303 to the link with ?token=; a URL without one ->
   * 303 to the link; none typed -> the form again; a wrong one -> the error handler's form.
   */
  const answerPasswordForm = (reply: FastifyReply, outcome: UrlPasswordFormOutcome) => {
    if (outcome.kind === 'missing') throw new ApiError(9002, 'no such short URL');
    if (outcome.kind === 'empty')
      return sendPasswordForm(
        reply,
        renderUrlPasswordPage({ siteTitle: ctx.settings.get().siteTitle, failure: 'empty' }),
      );
    const back = urlLink(ctx.settings.get(), '', outcome.slug);
    const location = outcome.kind === 'unlocked' ? `${back}?token=${encodeURIComponent(outcome.token)}` : back;
    return reply.code(303).header('cache-control', 'no-store').header('location', location).send();
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
        // A HEAD spends no view: of a view-limited link it must not tell where the link leads either.
        return sendRedirect(reply, outcome.limited === true ? null : outcome.destination);
      }
      return sendPasswordForm(reply, renderUrlPasswordPage({ siteTitle: ctx.settings.get().siteTitle }));
    },
  );

  app.get(
    '/view/url/:id',
    {
      schema: {
        summary: "Zipline's password page of a protected short URL (by id, code or vanity)",
        description:
          'Protected: the password form (200, never cached), posted back here. With a valid ?token=, or for a URL ' +
          'without a password: 302 to the short link. Missing, disabled or used up: 404.',
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
        return sendPasswordForm(reply, renderUrlPasswordPage({ siteTitle: ctx.settings.get().siteTitle }));
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
        const target = { slug: request.params.slug };
        const guess = passwordGuessGuard(request, 'url');
        return answerPasswordForm(reply, await submitUrlPasswordForm(ctx, target, request.body.password ?? '', guess));
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
        const target = { viewId: request.params.id };
        const guess = passwordGuessGuard(request, 'url');
        return answerPasswordForm(reply, await submitUrlPasswordForm(ctx, target, request.body.password ?? '', guess));
      },
    );
  });
};
