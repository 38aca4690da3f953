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
import { pipeline, type Readable } from 'node:stream';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { ApiError } from '../lib/errors.js';
import { sendFileRange } from '../http/file-sender.js';
import { FILES_ROUTE_INTERNAL, publicBaseUrl } from '../http/links.js';
import { fileLink } from '../lib/links.js';
import {
  acceptFormBodies,
  limitPasswordForms,
  pageErrorHandler,
  passwordFormErrorHandler,
  sendPage,
} from '../http/pages.js';
import type { RouteModule } from '../http/types.js';
import { contentRange, parseRange, unsatisfiedRange } from '../lib/byte-range.js';
import { httpDate, ifRangeAllows, isNotModified } from '../lib/conditional.js';
import { contentDisposition } from '../lib/content-disposition.js';
import { HoldLastChunk } from '../lib/hold-last-chunk.js';
import { mediaKind, servingPolicy, UPLOADED_BYTES_CSP } from '../lib/media-types.js';
import {
  assertUnlocked,
  countView,
  findServedFile,
  finishLastView,
  isUnlocked,
  ownerViewSettings,
  readTextPreview,
  unlockFile,
  type ServedFile,
} from '../services/file-serving.js';
import { renderPasswordPage, renderViewPage, TEXT_PREVIEW_BYTES, viewPageDetails } from '../services/view-page.js';
import { StorageNotFoundError } from '../storage/datasource.js';
import { LocalFileStream, type OpenFileRange } from '../storage/local-file-stream.js';

const EMBED_CRAWLERS =
  /discordbot|twitterbot|facebookexternalhit|slackbot|telegrambot|whatsapp|linkedinbot|mastodon|skypeuripreview|redditbot|embedly/i;

const params = z.object({ name: z.string().min(1).max(1024) });
const querystring = z.object({
  token: z.string().max(4096).optional().describe('access token of a password-protected file'),
  download: z.string().optional().describe('present: serve as an attachment'),
});
/** A request to one of these routes, its query already validated. */
type ServeRequest = FastifyRequest & { query: z.infer<typeof querystring> };

function cacheControl(file: ServedFile): string {
  // Views of these must reach us to be counted or checked.
  return file.password !== null || file.max_views !== null ? 'private, no-store' : 'public, max-age=3600';
}

/** The bytes of a file, with ranges, conditional requests and safe headers. */
async function sendFileBytes(
  ctx: AppContext,
  request: ServeRequest,
  reply: FastifyReply,
  file: ServedFile,
): Promise<FastifyReply> {
  assertUnlocked(ctx, file, request.query.token);
  const etag = `"${file.id}-${file.size.toString(36)}"`;
  const policy = servingPolicy(file.type);
  const attachment = request.query.download !== undefined || !policy.inline;
  // Set only once the answer is decided, so that an error answer does not carry them.
  const representationHeaders = {
    'accept-ranges': 'bytes',
    etag,
    'last-modified': httpDate(file.created_at),
    'cache-control': cacheControl(file),
    'content-disposition': contentDisposition(attachment ? 'attachment' : 'inline', file.original_name ?? file.name),
    'x-content-type-options': 'nosniff',
    'content-security-policy': UPLOADED_BYTES_CSP,
  };
  const conditions = {
    'if-none-match': request.headers['if-none-match'],
    'if-modified-since': request.headers['if-modified-since'],
  };
  if (isNotModified(conditions, etag, file.created_at)) return reply.code(304).headers(representationHeaders).send();

  let range = parseRange(request.headers.range, file.size);
  const ifRange = request.headers['if-range'];
  if (range.kind !== 'full' && !ifRangeAllows(Array.isArray(ifRange) ? ifRange[0] : ifRange, etag, file.created_at))
    range = { kind: 'full' };
  if (range.kind === 'unsatisfiable') {
    return reply.code(416).headers(representationHeaders).header('content-range', unsatisfiedRange(file.size)).send();
  }
  const partial = range.kind === 'partial' ? range : null;
  const respond = (): FastifyReply => {
    reply.headers(representationHeaders).header('content-type', policy.contentType);
    reply.header('content-length', String(partial ? partial.end - partial.start + 1 : file.size));
    if (partial) reply.code(206).header('content-range', contentRange(partial.start, partial.end, file.size));
    return reply;
  };
  if (request.method === 'HEAD') return respond().send();

  // The bytes are opened before the view is counted, so that a counted view still gets them when a concurrent last
  // view deletes them right after (a local file stays readable once open; on S3 the GET has at least begun).
  let body: Readable | null = null;
  if (file.size > 0) {
    try {
      body = await ctx.storage.get(file.storage_key, partial ?? undefined);
    } catch (err) {
      if (err instanceof StorageNotFoundError) throw new ApiError(4000, undefined, { cause: err });
      throw err;
    }
  }
  // A view is a GET of the file from its start; a ranged continuation is the same view going on.
  let last = false;
  try {
    if (partial === null || partial.start === 0) ({ last } = await countView(ctx, file));
  } catch (err) {
    body?.destroy();
    throw err;
  }
  if (body === null) {
    if (last) await finishLastView(ctx, file);
    return respond().send('');
  }
  // The last view: the bytes go before the client holds the last byte (and also if it goes away early).
  if (last) reply.raw.once('close', () => void finishLastView(ctx, file));
  const openFile = body instanceof LocalFileStream ? body.takeFile() : null;
  if (openFile) return sendOpenFile(respond(), openFile, last ? () => finishLastView(ctx, file) : undefined);
  if (!last) return respond().send(body);
  const held = new HoldLastChunk(() => finishLastView(ctx, file));
  pipeline(body, held, () => undefined);
  return respond().send(held);
}

/**
 * Sends a local file by copying it to the socket through reused buffers (http/file-sender.ts), which takes about half
 * the CPU of streaming it; the reply is hijacked for that, after its status and headers are written as they are.
 */
function sendOpenFile(reply: FastifyReply, file: OpenFileRange, beforeLastChunk?: () => Promise<void>): FastifyReply {
  try {
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (value !== undefined) reply.raw.setHeader(name, value);
    reply.raw.writeHead(reply.statusCode);
  } catch (err) {
    void file.handle.close();
    throw err;
  }
  reply.hijack();
  sendFileRange(reply.raw, file, beforeLastChunk ? { beforeLastChunk } : {}).catch((err: unknown) => {
    reply.log.error({ err }, 'sending a file failed midway: the response was cut off');
  });
  return reply;
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
    return sendPage(reply, renderPasswordPage(file, settings.siteTitle), 403);
  const view = await ownerViewSettings(ctx, file.user_id);
  const details = await viewPageDetails(ctx, file, view);
  let preview: { text: string; truncated: boolean } | undefined;
  if (mediaKind(file.type) === 'text' && !view.disableTextFiles) {
    const { last } = await countView(ctx, file);
    try {
      preview = await readTextPreview(ctx, file, TEXT_PREVIEW_BYTES);
    } finally {
      if (last) await finishLastView(ctx, file);
    }
  }
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
    schema: schema('The bytes of a file (ranges, conditional requests; ?token= for a password-protected file)'),
    handler: async (request, reply) =>
      sendFileBytes(ctx, request, reply, await findServedFile(ctx, request.params.name)),
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: `${FILES_ROUTE_INTERNAL}/:name`,
    schema: schema('The share link: the view page for browsers when the owner enabled it, otherwise the bytes'),
    errorHandler,
    handler: async (request, reply) => {
      const file = await findServedFile(ctx, request.params.name);
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
    async (request, reply) => sendViewPage(ctx, request, reply, await findServedFile(ctx, request.params.name)),
  );

  // The password form's post, on both addresses that show it; the redirect goes back to the address it came from.
  // Guesses: 10 a minute per address over both (argon2 is slow on purpose; guessers should be too).
  await app.register(async (plugin) => {
    acceptFormBodies(plugin);
    limitPasswordForms(plugin, ctx, 'file-password-form');
    const scope = plugin.withTypeProvider<ZodTypeProvider>();
    const forms = [
      { url: '/view/:name', back: (name: string) => `/view/${encodeURIComponent(name)}` },
      { url: `${FILES_ROUTE_INTERNAL}/:name`, back: (name: string) => fileLink(ctx.settings.get(), '', name) },
    ];
    for (const form of forms) {
      scope.post(
        form.url,
        {
          schema: {
            summary: "The password form of a protected file's page: the right password -> 303 to the page with ?token=",
            description:
              'application/x-www-form-urlencoded, for browsers. A wrong password answers the form again (403) saying so.',
            tags: ['files'],
            params,
            consumes: ['application/x-www-form-urlencoded'],
            body: z.object({ password: z.string().max(1024).optional() }),
          },
          errorHandler: passwordFormErrorHandler(ctx, (request, failure) =>
            renderPasswordPage(
              { name: (request.params as { name?: string }).name ?? '' },
              ctx.settings.get().siteTitle,
              failure,
            ),
          ),
        },
        async (request, reply) => {
          const file = await findServedFile(ctx, request.params.name);
          const password = request.body.password ?? '';
          if (password === '')
            return sendPage(reply, renderPasswordPage(file, ctx.settings.get().siteTitle, 'empty'), 403);
          const { token } = await unlockFile(ctx, file.name, password, null);
          return reply
            .code(303)
            .header('cache-control', 'no-store')
            .header('location', `${form.back(file.name)}?token=${encodeURIComponent(token)}`)
            .send();
        },
      );
    }
  });
};
