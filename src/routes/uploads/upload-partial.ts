// POST /api/upload/partial: one file in several requests, each a multipart body with one file part `file` holding
// exactly the bytes its Content-Range names. The first chunk (no x-service-p-token) opens a session and carries the
// upload options; every answer but the last carries the single-use token for the next chunk.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { uploaderOf } from '../../http/auth.js';
import { publicBaseUrl } from '../../http/links.js';
import { assertMultipart, chunkBody, receiving, sendLinksAsText } from '../../http/uploads/multipart.js';
import { uploadRateLimit } from '../../http/rate-limit.js';
import type { RouteModule } from '../../http/types.js';
import {
  headerText,
  CHUNK_HEADERS,
  parseChunkHeaders,
  parseUploadOptions,
  UPLOAD_HEADERS,
} from '../../http/uploads/headers.js';
import { FinalChunkResponseSchema, PartialChunkResponseSchema } from '../../schemas/chunked-upload.js';
import { BackgroundAssemblies } from '../../services/uploads/assembly.js';
import type { UploadSessionRow } from '../../db/schema/tables.js';
import { findOpenSession, receiveFirstChunk, receiveNextChunk } from '../../services/uploads/chunked.js';

const chunkHeaders = z.object({
  'content-range': z.string().optional().describe('bytes start-end/total: zero-based, end inclusive'),
  [CHUNK_HEADERS.contentLength]: z.string().optional().describe('size of the whole file in bytes'),
  [CHUNK_HEADERS.contentType]: z.string().optional().describe('MIME type of the whole file'),
  [CHUNK_HEADERS.fileName]: z.string().optional().describe('name of the whole file'),
  [CHUNK_HEADERS.lastChunk]: z.string().optional().describe('true exactly when the chunk ends at total - 1'),
  [CHUNK_HEADERS.token]: z
    .string()
    .optional()
    .describe('the partialToken of the previous answer; omitted on the first chunk'),
  [UPLOAD_HEADERS.folder]: z.string().optional().describe('target folder; the same on every chunk'),
});

/** Under /api/upload, for a signed-in user or an anonymous upload into a public folder. */
export const uploadPartialRoutes: RouteModule = (app, ctx) => {
  // Assemblies run after their answer was sent; closing the app waits for them.
  const assemblies = new BackgroundAssemblies(ctx);
  app.addHook('onClose', () => assemblies.settle());

  const uploadLimit = uploadRateLimit(ctx);
  // Rule 6: the first chunk counts against the upload limit; a chunk with a valid continuation token does not. The
  // session found for that is kept for the chunk's handler, so that a chunk reads its session once.
  const continued = new WeakMap<FastifyRequest, UploadSessionRow>();
  const allowList = async (request: FastifyRequest): Promise<boolean> => {
    if (uploadLimit.allowList(request)) return true;
    const token = headerText(request.headers, CHUNK_HEADERS.token);
    if (!token) return false;
    // An anonymous chunk continues a session of the folder's owner; a folder that takes no uploads is refused later.
    const owner = await uploaderOf(ctx, request).catch(() => undefined);
    if (!owner) return false;
    const session = await findOpenSession(ctx, owner.user.id, token);
    if (session) continued.set(request, session);
    return session !== undefined;
  };

  app.post(
    '/partial',
    {
      config: { rateLimit: { ...uploadLimit, allowList } },
      schema: {
        summary: 'Upload one file in chunks',
        description:
          'Multipart body with one file part named file holding exactly the bytes of Content-Range. The first chunk ' +
          '(no x-service-p-token) also carries the upload options (x-service-*). Non-final answers carry partialToken ' +
          'for the next chunk; the last answer carries the future link while the file is assembled in the background ' +
          '(GET /api/user/files/incomplete). Without credentials, every chunk names a public folder that allows uploads ' +
          "in x-service-folder (as POST /api/upload): the file is the folder owner's.",
        tags: ['files'],
        headers: chunkHeaders,
        consumes: ['multipart/form-data'],
        response: { 200: z.union([PartialChunkResponseSchema, FinalChunkResponseSchema]) },
      },
    },
    async (request, reply) => {
      const outcome = await receiving(request, reply, async () => {
        const chunk = parseChunkHeaders(request.headers);
        assertMultipart(request, 'send the chunk as multipart/form-data with a file part named file');
        const { user } = await uploaderOf(ctx, request);
        const body = chunkBody(request.raw, chunk.position.end - chunk.position.start + 1);
        if (chunk.token === null) {
          const options = parseUploadOptions(request.headers, ctx.settings.get(), ctx.clock.now());
          const baseUrl = publicBaseUrl(ctx, request, options.domain ?? undefined);
          return receiveFirstChunk(ctx, { ...chunk, user, options, baseUrl, body });
        }
        const folder = headerText(request.headers, UPLOAD_HEADERS.folder);
        return receiveNextChunk(ctx, {
          ...chunk,
          token: chunk.token,
          user,
          folderId: folder || null,
          body,
          session: continued.get(request),
        });
      });
      if (outcome.kind === 'partial')
        return { files: [], partialSuccess: true as const, partialToken: outcome.partialToken };
      // After the answer has gone (or the client has): the file is assembled in the background.
      reply.raw.once('close', () => assemblies.start(outcome.sessionId));
      const { answer } = outcome;
      return outcome.noJson ? sendLinksAsText<typeof answer>(reply, [answer.files[0]!.url]) : answer;
    },
  );
};
