// Serving a share link (services/serving/share-links.ts): GET/HEAD /s/<id> answers browsers with the file's view page (the
// link's password form while it is locked) and everyone else with the bytes; GET/HEAD /s/<id>/raw always with the
// bytes (ranges, conditional requests). POST /s/<id> is the password form: the right password -> 303 to the link
// with ?token=. A revoked, expired or used-up link, or one whose file is gone, answers like a missing file (404).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { publicBaseUrl } from '../../http/links.js';
import {
  acceptFormBodies,
  pageErrorHandler,
  passwordFormErrorHandler,
  passwordFormSchema,
  sendPage,
} from '../../http/serving/pages.js';
import { passwordGuessGuard } from '../../http/rate-limit.js';
import { sendStoredBytes } from '../../http/serving/stored-bytes.js';
import type { RouteModule } from '../../http/types.js';
import { shareLink, shareRawLink } from '../../lib/text/links.js';
import { renderPasswordPage, renderViewPage, TEXT_PREVIEW_BYTES } from '../../pages/view-page.js';
import { countBytesView, openFileBytes, viewPageContent } from '../../services/serving/files.js';
import {
  assertShareUnlocked,
  countShareView,
  findShare,
  isShareUnlocked,
  unlockShare,
  type OpenShare,
} from '../../services/serving/share-links.js';

const params = z.object({ id: z.string().min(1).max(64) });
const querystring = z.object({
  token: z.string().max(4096).optional().describe('access token of a password-protected share link'),
  download: z.string().optional().describe('present: serve as an attachment'),
});
type ShareRequest = FastifyRequest & { params: z.infer<typeof params>; query: z.infer<typeof querystring> };

/** The bytes, once the link is unlocked; a GET from the start (any GET of a view-limited link) counts a view. */
function sendShareBytes(
  ctx: AppContext,
  request: ShareRequest,
  reply: FastifyReply,
  { share, file }: OpenShare,
): Promise<FastifyReply> {
  assertShareUnlocked(ctx, share, request.query.token);
  return sendStoredBytes(request, reply, file, {
    // Never in a shared cache: every request must reach the link's checks.
    cacheControl: 'private, no-store',
    download: request.query.download !== undefined,
    open: (span) => openFileBytes(ctx, file, span),
    opened: async (span) => {
      // As for files: a ranged continuation is the same view going on, unless the link has a view limit.
      if (span === undefined || span.start === 0 || share.max_views !== null) await countShareView(ctx, share);
      return countBytesView(ctx, file, span);
    },
  });
}

async function sendSharePage(
  ctx: AppContext,
  request: ShareRequest,
  reply: FastifyReply,
  { share, file }: OpenShare,
): Promise<FastifyReply> {
  const { siteTitle } = ctx.settings.get();
  const token = request.query.token;
  if (!isShareUnlocked(ctx, share, token)) return sendPage(reply, renderPasswordPage(file, siteTitle), 403);
  const { view, details, preview } = await viewPageContent(ctx, file, TEXT_PREVIEW_BYTES, () =>
    countShareView(ctx, share),
  );
  const page = renderViewPage({
    file,
    view,
    siteTitle,
    baseUrl: publicBaseUrl(ctx, request),
    token,
    ...details,
    ...(preview ? { text: preview.text, textTruncated: preview.truncated } : {}),
    links: { raw: (download) => shareRawLink('', share.id, { token, download }), page: shareLink('', share.id) },
  });
  return sendPage(reply, page);
}

/** Whether /s/<id> should answer with the page rather than the bytes: a browser's plain GET. */
function wantsPage(request: ShareRequest): boolean {
  return (
    request.method === 'GET' &&
    request.query.download === undefined &&
    request.headers.range === undefined &&
    (request.headers.accept ?? '').includes('text/html')
  );
}

export const shareRoutes: RouteModule = async (app, ctx) => {
  const schema = (summary: string) => ({ summary, tags: ['files'], params, querystring });
  const errorHandler = pageErrorHandler(ctx);

  app.route({
    method: ['GET', 'HEAD'],
    url: '/s/:id',
    schema: schema('A share link: the view page for browsers (a password form while locked), otherwise the bytes'),
    errorHandler,
    handler: async (request, reply) => {
      const open = await findShare(ctx, request.params.id);
      if (wantsPage(request)) return sendSharePage(ctx, request, reply, open);
      return sendShareBytes(ctx, request, reply, open);
    },
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: '/s/:id/raw',
    schema: schema('The bytes behind a share link (ranges, conditional requests; ?token= when it has a password)'),
    handler: async (request, reply) => sendShareBytes(ctx, request, reply, await findShare(ctx, request.params.id)),
  });

  await app.register(async (plugin) => {
    acceptFormBodies(plugin);
    plugin.withTypeProvider<ZodTypeProvider>().post(
      '/s/:id',
      {
        schema: passwordFormSchema(
          "A share link's password form: the right password -> 303 to the link with ?token=",
          'files',
          params,
        ),
        errorHandler: passwordFormErrorHandler(ctx, (_request, failure) =>
          renderPasswordPage({ name: 'this file' }, ctx.settings.get().siteTitle, failure),
        ),
      },
      async (request, reply) => {
        const { share, file } = await findShare(ctx, request.params.id);
        const password = request.body.password ?? '';
        if (password === '')
          return sendPage(reply, renderPasswordPage(file, ctx.settings.get().siteTitle, 'empty'), 403);
        const token = await unlockShare(ctx, share, password, passwordGuessGuard(request, 'share'));
        return reply
          .code(303)
          .header('cache-control', 'no-store')
          .header('location', `${shareLink('', share.id)}?token=${encodeURIComponent(token)}`)
          .send();
      },
    );
  });
};
