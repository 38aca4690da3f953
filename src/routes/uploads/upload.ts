// POST /api/upload: one or more multipart parts named `file`, each streamed into storage; options in x-service-*
// headers (see http/uploads/headers.ts). Rate limited per user after authentication.
import { z } from 'zod';
import { uploaderOf } from '../../http/auth.js';
import { cutOffRequestBody } from '../../http/uploads/cut-off-body.js';
import { ApiError } from '../../lib/errors.js';
import { sendApiError, toApiError } from '../../http/errors.js';
import type { OutgoingHttpHeaders } from 'node:http';
import { publicBaseUrl } from '../../http/links.js';
import { assertMultipart, receiving } from '../../http/uploads/multipart.js';
import { receiveUpload } from '../../http/uploads/send-upload.js';
import { uploadRateLimit } from '../../http/rate-limit.js';
import type { RouteModule } from '../../http/types.js';
import { UploadResponseSchema } from '../../schemas/file.js';
import { parseUploadOptions, UPLOAD_HEADERS } from '../../http/uploads/headers.js';

const optionHeaders = z.object({
  [UPLOAD_HEADERS.deletesAt]: z
    .string()
    .optional()
    .describe('never, a duration from now (30m, 7d) or an ISO 8601 date'),
  [UPLOAD_HEADERS.format]: z.string().optional().describe('random, uuid, date, name or random-words'),
  [UPLOAD_HEADERS.password]: z.string().optional().describe('protect the files with this password'),
  [UPLOAD_HEADERS.maxViews]: z.string().optional().describe('delete each file after this many views'),
  [UPLOAD_HEADERS.originalName]: z
    .string()
    .optional()
    .describe(
      "true: keep the client's file name as originalName; false: do not; absent: the filesKeepOriginalName setting (on by default)",
    ),
  [UPLOAD_HEADERS.fileName]: z.string().optional().describe('the served name (the extension is added)'),
  [UPLOAD_HEADERS.fileExtension]: z.string().optional().describe('replaces the extension, e.g. png'),
  [UPLOAD_HEADERS.folder]: z.string().optional().describe('id of one of your folders'),
  [UPLOAD_HEADERS.domain]: z
    .string()
    .optional()
    .describe('host for the returned links (comma separated: one at random)'),
  [UPLOAD_HEADERS.noJson]: z
    .string()
    .optional()
    .describe('true: answer the links as text, joined with "," (as Zipline)'),
  [UPLOAD_HEADERS.removeGps]: z
    .string()
    .optional()
    .describe(
      'true: store images without their metadata (EXIF GPS and the rest); absent: the filesRemoveGpsMetadata setting',
    ),
  [UPLOAD_HEADERS.extensionless]: z
    .string()
    .optional()
    .describe(
      'true: the links leave out the extension (/u/abc serves abc.png); false: they keep it; absent: the filesExtensionlessUrls setting',
    ),
  [UPLOAD_HEADERS.compressionPercent]: z
    .string()
    .optional()
    .describe('0-100: re-encode images at this quality (the answer carries compressed: {mimetype, ext})'),
  [UPLOAD_HEADERS.compressionType]: z.string().optional().describe('jpg (default), png or webp, with the percent'),
});

/** Under /api/upload, for a signed-in user or an anonymous upload into a public folder. */
export const uploadRoutes: RouteModule = (app, ctx) => {
  app.post(
    '',
    {
      config: { rateLimit: uploadRateLimit(ctx) },
      // A body of another type fails in Fastify's content-type parsing, before the handler: it is not multipart.
      errorHandler: (err, request, reply) => {
        const notMultipart = (err as { code?: string }).code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE';
        if (notMultipart) cutOffRequestBody(request, reply);
        return sendApiError(
          reply,
          notMultipart
            ? new ApiError(1061, 'send multipart/form-data with parts named file')
            : toApiError(err, request),
        );
      },
      schema: {
        summary: 'Upload one or more files (multipart parts named file)',
        description:
          'Each file streams into storage; over the size limit -> 413/5001, over the quota -> 413/5002 (nothing is ' +
          'kept). Not multipart -> 1061, no file part -> 1062. With x-service-no-json the answer is text/plain, the links joined with ",". ' +
          "Without credentials (Zipline's anonymous uploads), x-service-folder must name a public folder whose owner " +
          "allows uploads (missing -> 4001, not open -> 3002): the files are the owner's, on the owner's quota. " +
          'Without credentials and without x-service-folder -> 2002.',
        tags: ['files'],
        headers: optionHeaders,
        consumes: ['multipart/form-data'],
        response: { 200: UploadResponseSchema },
      },
    },
    async (request, reply) => {
      // Refused before its body (the caller, not multipart, a bad header): the error handler answers, and the rest
      // of the body is not read. From the body on, receiveUpload answers, as it does for the fast path.
      const call = await receiving(request, reply, async () => {
        const { user } = await uploaderOf(ctx, request);
        assertMultipart(request);
        const options = parseUploadOptions(request.headers, ctx.settings.get(), ctx.clock.now());
        return { user, options, baseUrl: publicBaseUrl(ctx, request, options.domain ?? undefined) };
      });
      const before = reply.getHeaders() as OutgoingHttpHeaders;
      reply.hijack();
      await receiveUpload(ctx, request.raw, reply.raw, call, before, reply.log);
      return reply;
    },
  );
};
