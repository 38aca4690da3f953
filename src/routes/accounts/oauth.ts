// Signing in through OAuth providers: GET /api/auth/oauth/<discord|github|google|oidc> starts a flow (no code) or
// finishes it (code + state), `?state=link` links the provider to the signed-in account; GET /api/auth/oauth lists
// the caller's links and DELETE /api/auth/oauth {provider} unlinks one. Browsers get failures as a page in words,
// API clients (Accept: application/json) the error JSON; every failure is logged in full.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { OAuthProviderKind } from '../../db/schema/tables.js';
import { caller, sessionOrigin, setSessionCookie } from '../../http/auth.js';
import { toApiError } from '../../http/errors.js';
import { publicBaseUrl } from '../../http/links.js';
import { pageErrorHandler, sendPage } from '../../http/serving/pages.js';
import type { RouteModule } from '../../http/types.js';
import { renderErrorPage } from '../../pages/error-page.js';
import { oauthErrorText } from '../../pages/oauth-error.js';
import { OAuthProviderSchema } from '../../schemas/user.js';
import { ApiError } from '../../lib/errors.js';
import { toOAuthProviderDto } from '../../services/accounts/dto.js';
import {
  finishOAuthSignIn,
  listOAuthLinks,
  OAUTH_FLOW_TTL_MS,
  startOAuthFlow,
  unlinkOAuthProvider,
} from '../../services/accounts/oauth.js';
import { OAUTH_PROVIDERS } from '../../services/accounts/oauth-providers.js';

const tags = ['auth'];
const FLOW_COOKIE = 'chute_oauth_flow';
const FLOW_COOKIE_PATH = '/api/auth/oauth';

const ProviderSchema = z.enum(OAUTH_PROVIDERS as [OAuthProviderKind, ...OAuthProviderKind[]]);

/** The flow's route under /api/auth. */
function providerPath(provider: OAuthProviderKind): string {
  return `/oauth/${provider.toLowerCase()}`;
}

function callbackPath(provider: OAuthProviderKind): string {
  return `/api/auth${providerPath(provider)}`;
}

/** Failures of a flow: logged with their cause, the flow cookie dropped, then a page (browsers) or the JSON error. */
function oauthErrorHandler(ctx: AppContext, provider: OAuthProviderKind) {
  const answer = pageErrorHandler(ctx, (error, request, reply) => {
    // Someone signed in was linking: back to their settings; anyone else back to the sign-in page.
    const signedIn = request.auth?.via === 'session';
    const page = renderErrorPage({
      siteTitle: ctx.settings.get().siteTitle,
      ...oauthErrorText(error.code, provider, error.extra?.reason),
      back: signedIn
        ? { href: '/dashboard/settings', label: 'Back to settings' }
        : { href: '/auth/login', label: 'Back to sign-in' },
    });
    return sendPage(reply, page, error.statusCode);
  });
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const error = toApiError(err, request);
    // 5xx are logged by the answer itself; the rest (state, registration, linking refusals) here.
    if (error.statusCode < 500)
      request.log.warn({ err: error.cause ?? error, code: error.code, provider }, error.message);
    reply.clearCookie(FLOW_COOKIE, { path: FLOW_COOKIE_PATH });
    return answer(error as unknown as FastifyError, request, reply);
  };
}

/** Under /api/auth, with the caller resolved when signed in (who links a provider). */
export const oauthFlowRoutes: RouteModule = (app, ctx) => {
  for (const provider of OAUTH_PROVIDERS) {
    app.get(
      providerPath(provider),
      {
        errorHandler: oauthErrorHandler(ctx, provider),
        schema: {
          summary: `Sign in with ${provider}: start the flow, or finish it when the provider sends the browser back`,
          description:
            'Without `code`: redirects to the provider (PKCE S256, a random state bound to this browser by a cookie ' +
            'for 10 minutes); `state=link` links the provider to the signed-in account instead of signing in. With ' +
            "`code` and `state` (the provider's redirect): checks the state (1064), exchanges the code, then signs " +
            'in the linked user, registers one (when oauthRegistration is on, 3016 otherwise), or links; redirects to ' +
            '/dashboard (/dashboard/settings after linking). The redirect URI to register at the provider is ' +
            `<PUBLIC_URL or this server's origin>${callbackPath(provider)}.`,
          tags,
          querystring: z.object({
            code: z.string().max(4096).optional(),
            state: z.string().max(1024).optional(),
            error: z.string().max(256).optional(),
            error_description: z.string().max(2048).optional(),
            iss: z.string().max(2048).optional(),
          }),
        },
      },
      async (request, reply) => {
        const redirectUri = `${publicBaseUrl(ctx, request)}${callbackPath(provider)}`;
        const { code, state, error } = request.query;
        const current = request.auth?.via === 'session' ? request.auth.user : null;
        if (code === undefined && error === undefined) {
          const linking = state === 'link';
          if (linking && !current) throw new ApiError(2002, 'linking needs a signed-in browser session');
          const flow = await startOAuthFlow(ctx, provider, redirectUri, linking ? current : null);
          reply.setCookie(FLOW_COOKIE, flow.cookie, {
            path: FLOW_COOKIE_PATH,
            httpOnly: true,
            // Lax: the provider's redirect back is a top-level GET navigation, which carries it.
            sameSite: 'lax',
            secure: request.protocol === 'https',
            maxAge: OAUTH_FLOW_TTL_MS / 1000,
          });
          return reply.redirect(flow.url, 302);
        }
        const callbackUrl = new URL(request.url, redirectUri);
        const outcome = await finishOAuthSignIn(
          ctx,
          { provider, callbackUrl, redirectUri, flowCookie: request.cookies[FLOW_COOKIE], currentUser: current },
          sessionOrigin(request),
        );
        reply.clearCookie(FLOW_COOKIE, { path: FLOW_COOKIE_PATH });
        if (outcome.kind === 'linked') return reply.redirect('/dashboard/settings', 302);
        setSessionCookie(request, reply, outcome.secret);
        return reply.redirect('/dashboard', 302);
      },
    );
  }
};

/** Under /api/auth, for a signed-in user: their links. */
export const oauthLinkRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/oauth',
    {
      schema: { tags, summary: "The caller's linked OAuth providers", response: { 200: z.array(OAuthProviderSchema) } },
    },
    async (request) => (await listOAuthLinks(ctx, caller(request).user.id)).map(toOAuthProviderDto),
  );

  app.delete(
    '/oauth',
    {
      schema: {
        tags,
        summary: 'Unlink an OAuth provider from the caller; answers the links that remain',
        description:
          '1030 when the caller has no link to that provider; 1043 when it is the last way to sign in of an account ' +
          'without a password (and without a passkey).',
        body: z.object({ provider: ProviderSchema }),
        response: { 200: z.array(OAuthProviderSchema) },
      },
    },
    async (request) =>
      (await unlinkOAuthProvider(ctx, caller(request).user, request.body.provider)).map(toOAuthProviderDto),
  );
};
