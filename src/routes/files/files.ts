// Serving files to whoever has the link: GET/HEAD /raw/<name> (the bytes), GET/HEAD /u/<name> (the share link; the
// prefix is the filesRoute setting, rewritten onto /u) and GET /view/<name> (the view page).
//
// /u/<name> answers browsers (Accept: text/html) and embed crawlers with the view page when the owner turned it on
// (view.enabled, or view.embed for crawlers), and with a password form for a locked file; everyone else (curl,
// players, <img>, range requests, ?download) gets the bytes exactly like /raw/<name>.
//
// The password form is plain HTML posted back to its own address (POST /u/<name> or /view/<name>): the right
// password answers 303 to the same address with ?token=, a wrong one the form again with the reason in words.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { authenticate } from '../../http/auth.js';
import { FILES_ROUTE_INTERNAL, publicBaseUrl } from '../../http/links.js';
import { fileLink } from '../../lib/text/links.js';
import {
  acceptFormBodies,
  pageErrorHandler,
  passwordFormErrorHandler,
  passwordFormSchema,
  sendPage,
  sendPasswordForm,
} from '../../http/serving/pages.js';
import { passwordGuessGuard } from '../../http/rate-limit.js';
import { bytesRequestOf, sendPlannedBytes, sendThumbnail } from '../../http/serving/send-bytes.js';
import type { RouteModule } from '../../http/types.js';
import {
  assertVisibleTo,
  findServedFile,
  isUnlocked,
  ownerViewSettings,
  servedBytesPlan,
  unlockFile,
  viewPageContent,
  type ServedFile,
} from '../../services/serving/files.js';
import { renderPasswordPage, renderViewPage, TEXT_PREVIEW_BYTES } from '../../pages/view-page.js';
import { openPublicThumbnail } from '../../services/media/thumbnails.js';
import { fileIdOfThumbnailName } from '../../services/media/thumbnail-names.js';

const EMBED_CRAWLERS =
  /discordbot|twitterbot|facebookexternalhit|slackbot|telegrambot|whatsapp|linkedinbot|mastodon|skypeuripreview|redditbot|embedly/i;

const params = z.object({ name: z.string().min(1).max(1024) });
const querystring = z.object({
  token: z.string().max(4096).optional().describe('access token of a password-protected file'),
  download: z.string().optional().describe('present: serve as an attachment'),
});
/** A request to one of these routes, its query already validated. */
type ServeRequest = FastifyRequest & { query: z.infer<typeof querystring> };

/**
 * The file served under `name`, as this caller may see it: a private file only to its owner (signed in with the
 * session cookie or a token); to anyone else 4000, as if it did not exist. Credentials are read only for private
 * files, so the common case costs no look-up.
 */
async function visibleFile(
  ctx: AppContext,
  request: FastifyRequest,
  name: string,
  options: { expiredStatus?: 404 | 410 } = {},
): Promise<ServedFile> {
  const file = await findServedFile(ctx, name, options);
  if (file.private === 1) {
    const viewer = await authenticate(ctx, request).catch(() => null);
    assertVisibleTo(file, viewer?.user.id ?? null);
  }
  return file;
}

/** The bytes of a file, once unlocked; a GET from the start counts a view. */
function sendFileBytes(
  ctx: AppContext,
  request: ServeRequest,
  reply: FastifyReply,
  file: ServedFile,
): Promise<FastifyReply> {
  const bytes = bytesRequestOf(request, request.query.download !== undefined);
  return sendPlannedBytes(reply, servedBytesPlan(ctx, file, bytes, request.query.token));
}

/** The view page of a file (the password form while it is locked). Text shown on the page counts as a view. */
async function sendViewPage(
  ctx: AppContext,
  request: ServeRequest,
  reply: FastifyReply,
  file: ServedFile,
): Promise<FastifyReply> {
  const settings = ctx.settings.get();
  if (!isUnlocked(ctx, file, request.query.token))
    return sendPasswordForm(reply, renderPasswordPage(file, settings.siteTitle));
  const { view, details, preview } = await viewPageContent(ctx, file, TEXT_PREVIEW_BYTES);
  const page = renderViewPage({
    file,
    view,
    siteTitle: settings.siteTitle,
    baseUrl: publicBaseUrl(ctx, request),
    token: request.query.token,
    ...details,
    ...(preview ? { text: preview.text, textTruncated: preview.truncated } : {}),
  });
  return sendPage(reply, page);
}

/** Whether /u/<name> should answer with a page rather than the bytes. */
async function wantsPage(ctx: AppContext, request: ServeRequest, file: ServedFile): Promise<boolean> {
  if (request.method !== 'GET' || request.query.download !== undefined || request.headers.range !== undefined)
    return false;
  const crawler = EMBED_CRAWLERS.test(request.headers['user-agent'] ?? '');
  const browser = (request.headers.accept ?? '').includes('text/html');
  if (!crawler && !browser) return false;
  if (file.password !== null && !isUnlocked(ctx, file, request.query.token)) return true;
  const view = await ownerViewSettings(ctx, file.user_id);
  return view.enabled === true || (crawler && view.embed === true);
}

export const fileServingRoutes: RouteModule = async (app, ctx) => {
  const schema = (summary: string) => ({ summary, tags: ['files'], params, querystring });
  // Browsers asking for a page get errors (missing, expired) as a page in words; everyone else JSON.
  const errorHandler = pageErrorHandler(ctx);

  app.route({
    method: ['GET', 'HEAD'],
    url: '/raw/:name',
    schema: schema(
      'The bytes of a file (ranges, conditional requests; ?token= for a password-protected file); ' +
        '/raw/.thumbnail.<fileId>.webp: the thumbnail of a file without a password',
    ),
    handler: async (request, reply) => {
      const thumbnailOf = fileIdOfThumbnailName(request.params.name);
      if (thumbnailOf !== null) {
        return sendThumbnail(request, reply, await openPublicThumbnail(ctx, thumbnailOf), 'public, max-age=3600');
      }
      return sendFileBytes(ctx, request, reply, await visibleFile(ctx, request, request.params.name));
    },
  });

  // Zipline's short address of the bytes. A filesRoute or urlsRoute set to /r is matched first (rewritten before
  // routing), so this never hides a deployment's own links.
  app.route({
    method: ['GET', 'HEAD'],
    url: '/r/:name',
    schema: { summary: "Zipline's /r/<name>: 301 to /raw/<name>", tags: ['files'], params },
    handler: async (request, reply) =>
      reply
        .code(301)
        .header('location', `/raw/${encodeURIComponent(request.params.name)}`)
        .send(),
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: `${FILES_ROUTE_INTERNAL}/:name`,
    schema: schema('The share link: the view page for browsers when the owner enabled it, otherwise the bytes'),
    errorHandler,
    handler: async (request, reply) => {
      const file = await visibleFile(ctx, request, request.params.name);
      // Browsers (Accept) and chat apps (User-Agent) may get the view page where others get the bytes, which are
      // cacheable: a shared cache must keep the two apart.
      reply.header('vary', 'Accept, User-Agent');
      if (await wantsPage(ctx, request, file)) return sendViewPage(ctx, request, reply, file);
      return sendFileBytes(ctx, request, reply, file);
    },
  });

  app.get(
    '/view/:name',
    {
      schema: schema(
        'The view page of a file: shown inline when it is an image, video, audio or text, with embed tags',
      ),
      errorHandler,
    },
    // An expired file answers 410 here, as Zipline's /view does (then it is deleted: 404 from the next request on).
    async (request, reply) =>
      sendViewPage(ctx, request, reply, await visibleFile(ctx, request, request.params.name, { expiredStatus: 410 })),
  );

  // The password form's post, on both addresses that show it; the redirect goes back to the address it came from.
  // Guesses: 10 a minute per file and address, over both and the JSON unlock route (argon2 is slow on purpose;
  // guessers should be too).
  await app.register(async (plugin) => {
    acceptFormBodies(plugin);
    const scope = plugin.withTypeProvider<ZodTypeProvider>();
    const forms = [
      { url: '/view/:name', back: (name: string) => `/view/${encodeURIComponent(name)}` },
      { url: `${FILES_ROUTE_INTERNAL}/:name`, back: (name: string) => fileLink(ctx.settings.get(), '', name) },
    ];
    for (const form of forms) {
      scope.post(
        form.url,
        {
          schema: passwordFormSchema(
            "The password form of a protected file's page: the right password -> 303 to the page with ?token=",
            'files',
            params,
          ),
          errorHandler: passwordFormErrorHandler(ctx, (request, failure) =>
            renderPasswordPage(
              { name: (request.params as { name?: string }).name ?? '' },
              ctx.settings.get().siteTitle,
              failure,
            ),
          ),
        },
        async (request, reply) => {
          const file = await visibleFile(ctx, request, request.params.name);
          const password = request.body.password ?? '';
          if (password === '')
            return sendPasswordForm(reply, renderPasswordPage(file, ctx.settings.get().siteTitle, 'empty'));
          const { token } = await unlockFile(ctx, file.name, password, null, passwordGuessGuard(request, 'file'));
          // Back to the address asked: a link without the extension stays one.
          return reply
            .code(303)
            .header('cache-control', 'no-store')
            .header('location', `${form.back(request.params.name)}?token=${encodeURIComponent(token)}`)
            .send();
        },
      );
    }
  });
};
