// Share links, in one place: serving them (services/serving/share-links.ts) and their management by whoever manages
// the file. GET/HEAD /s/<id> answers browsers with the file's view page (the link's password form while it is locked)
// and everyone else with the bytes; GET/HEAD /s/<id>/raw always with the bytes (ranges, conditional requests).
// POST /s/<id> is the password form: the right password -> 303 to the link with ?token=. A revoked, expired or
// used-up link, or one whose file is gone, answers like a missing file (404). POST/GET /api/user/files/:id/shares and
// DELETE /api/user/files/:id/shares/:shareId make, list and revoke a file's links.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { caller } from '../../http/auth.js';
import { publicBaseUrl } from '../../http/links.js';
import {
  acceptFormBodies,
  pageErrorHandler,
  passwordFormErrorHandler,
  passwordFormSchema,
  sendPage,
  sendPasswordForm,
} from '../../http/serving/pages.js';
import { passwordGuessGuard } from '../../http/rate-limit.js';
import { bytesRequestOf, sendPlannedBytes } from '../../http/serving/send-bytes.js';
import type { RouteModule } from '../../http/types.js';
import { shareLink, shareRawLink } from '../../lib/text/links.js';
import { IsoDateTime } from '../../schemas/common.js';
import { renderPasswordPage, renderViewPage, TEXT_PREVIEW_BYTES } from '../../pages/view-page.js';
import { viewPageContent } from '../../services/serving/files.js';
import {
  countShareView,
  createShare,
  findShare,
  isShareUnlocked,
  listShares,
  revokeShare,
  shareBytesPlan,
  unlockShare,
  type OpenShare,
  type ShareDto,
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
  share: OpenShare,
): Promise<FastifyReply> {
  const bytes = bytesRequestOf(request, request.query.download !== undefined);
  return sendPlannedBytes(reply, shareBytesPlan(ctx, share, bytes, request.query.token));
}

async function sendSharePage(
  ctx: AppContext,
  request: ShareRequest,
  reply: FastifyReply,
  { share, file }: OpenShare,
): Promise<FastifyReply> {
  const { siteTitle } = ctx.settings.get();
  const token = request.query.token;
  if (!isShareUnlocked(ctx, share, token)) return sendPasswordForm(reply, renderPasswordPage(file, siteTitle));
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

/** The links themselves, for anyone. */
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
          return sendPasswordForm(reply, renderPasswordPage(file, ctx.settings.get().siteTitle, 'empty'));
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

const fileParams = z.object({ id: z.string().min(1).max(1024).describe('file id or served name') });

const ShareSchema = z
  .object({
    id: z.string().describe('the random part of the link: /s/<id>'),
    url: z.string().describe('the share link'),
    fileId: z.string(),
    passwordProtected: z.boolean(),
    maxViews: z.number().int().nullable(),
    views: z.number().int(),
    expiresAt: IsoDateTime.nullable(),
    createdAt: IsoDateTime,
  })
  .meta({ id: 'FileShare' });

/** Under /api/user, for a signed-in user: a file's links, made, listed and revoked. */
export const shareManagementRoutes: RouteModule = (app, ctx) => {
  const withUrl = (base: string, share: ShareDto) => ({ ...share, url: shareLink(base, share.id) });

  app.post(
    '/files/:id/shares',
    {
      schema: {
        tags: ['files'],
        summary: 'Make a share link to a file, with its own password, view limit and expiry',
        description:
          "The link opens the file even when it is private; its password replaces the file's. Unknown file -> 4000.",
        params: fileParams,
        body: z.object({
          password: z.string().max(1024).nullable().optional().describe('asked by the link; absent or null: none'),
          maxViews: z.number().int().min(1).max(2_147_483_647).nullable().optional(),
          expiresAt: z
            .string()
            .max(64)
            .nullable()
            .optional()
            .describe('ISO date-time or a duration from now such as 7d; absent, null or "never": no expiry'),
        }),
        response: { 200: ShareSchema },
      },
    },
    async (request) =>
      withUrl(
        publicBaseUrl(ctx, request),
        await createShare(ctx, caller(request).user, request.params.id, request.body),
      ),
  );

  app.get(
    '/files/:id/shares',
    {
      schema: {
        tags: ['files'],
        summary: "A file's share links, newest first",
        params: fileParams,
        response: { 200: z.array(ShareSchema) },
      },
    },
    async (request) => {
      const base = publicBaseUrl(ctx, request);
      return (await listShares(ctx, caller(request).user, request.params.id)).map((s) => withUrl(base, s));
    },
  );

  app.delete(
    '/files/:id/shares/:shareId',
    {
      schema: {
        tags: ['files'],
        summary: 'Revoke a share link: it answers 404 from now on (4000 when unknown)',
        params: fileParams.extend({ shareId: z.string().min(1).max(64) }),
        response: { 200: ShareSchema },
      },
    },
    async (request) =>
      withUrl(
        publicBaseUrl(ctx, request),
        await revokeShare(ctx, caller(request).user, request.params.id, request.params.shareId),
      ),
  );
};
