// POST /api/upload/partial: one file in several requests, each a multipart body with one file part `file` holding
// exactly the bytes its Content-Range names. The first chunk (no x-service-p-token) opens a session and carries the
// upload options; every answer but the last carries the single-use token for the next chunk.
import type { Multipart, MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { caller, requireUser } from '../http/auth.js';
import { cutOffRequestBody } from '../http/cut-off-body.js';
import { ApiError } from '../lib/errors.js';
import { publicBaseUrl } from '../http/links.js';
import { AUTHENTICATED } from '../http/openapi.js';
import { uploadRateLimit } from '../http/rate-limit.js';
import type { RouteModule } from '../http/types.js';
import { FinalChunkResponseSchema, PartialChunkResponseSchema } from '../schemas/partial-upload.js';
import { assemblePartialUpload } from '../services/partial-upload-assembly.js';
import {
  isValidContinuation,
  receiveFirstChunk,
  receiveNextChunk,
  type ChunkBody,
  type ChunkOutcome,
  type ChunkPosition,
} from '../services/partial-uploads.js';
import { decodeHeaderText, parseUploadOptions, UPLOAD_HEADERS } from '../services/upload-options.js';

export const PARTIAL_HEADERS = {
  contentRange: 'content-range',
  contentLength: 'x-service-p-content-length',
  contentType: 'x-service-p-content-type',
  fileName: 'x-service-p-filename',
  lastChunk: 'x-service-p-lastchunk',
  token: 'x-service-p-token',
  /** The retired scheme's header. */
  identifier: 'x-service-p-identifier',
} as const;

const RETIRED_SCHEME =
  'the x-service-p-identifier scheme was retired: send the first chunk without x-service-p-token, then send the ' +
  'partialToken of each answer as x-service-p-token with the next chunk';

export interface PartialHeaders {
  position: ChunkPosition;
  token: string | null;
  fileName: string;
  contentType: string;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined ? undefined : text.trim();
}

function required(headers: IncomingHttpHeaders, name: string): string {
  const value = header(headers, name);
  if (value === undefined || value === '') throw new ApiError(1002, `the ${name} header is missing`);
  return value;
}

/**
 * Reads and checks the chunk headers: none of them -> 1004; a missing or malformed one, or rules broken within one
 * request (end before start, past the total, a total other than x-service-p-content-length, lastchunk not matching
 * end = total - 1, an empty file) -> 1002; a size beyond any file -> 5001.
 */
export function parsePartialHeaders(headers: IncomingHttpHeaders): PartialHeaders {
  const names = Object.values(PARTIAL_HEADERS);
  if (!names.some((name) => headers[name] !== undefined)) {
    throw new ApiError(1004, `send ${PARTIAL_HEADERS.contentRange} and the x-service-p-* headers`);
  }
  const lengthText = required(headers, PARTIAL_HEADERS.contentLength);
  if (!/^\d+$/.test(lengthText)) throw new ApiError(1002, `${PARTIAL_HEADERS.contentLength} must be a number of bytes`);
  const contentLength = Number(lengthText);
  if (!Number.isSafeInteger(contentLength)) throw new ApiError(5001, `${lengthText} bytes`);
  if (contentLength === 0) {
    throw new ApiError(
      1002,
      'an empty file cannot be uploaded in chunks (no Content-Range describes 0 bytes): use POST /api/upload',
    );
  }

  const rangeText = required(headers, PARTIAL_HEADERS.contentRange);
  const range = /^bytes (\d{1,16})-(\d{1,16})\/(\d{1,16})$/.exec(rangeText);
  if (!range) throw new ApiError(1002, 'Content-Range must be "bytes start-end/total" (zero-based, end inclusive)');
  const [start, end, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
  if (end < start) throw new ApiError(1002, 'the Content-Range end is before its start');
  if (total !== contentLength) {
    throw new ApiError(
      1002,
      `the Content-Range total must equal ${PARTIAL_HEADERS.contentLength} (the whole file's size)`,
    );
  }
  if (end >= total) throw new ApiError(1002, 'the Content-Range end is past the last byte (total - 1)');

  const lastText = required(headers, PARTIAL_HEADERS.lastChunk).toLowerCase();
  if (lastText !== 'true' && lastText !== 'false')
    throw new ApiError(1002, `${PARTIAL_HEADERS.lastChunk} must be true or false`);
  const lastChunk = lastText === 'true';
  if (lastChunk !== (end === total - 1)) {
    throw new ApiError(1002, `${PARTIAL_HEADERS.lastChunk} must be true exactly when the chunk ends at total - 1`);
  }

  const token = header(headers, PARTIAL_HEADERS.token);
  return {
    position: { start, end, total, lastChunk },
    token: token === undefined || token === '' ? null : token,
    fileName: decodeHeaderText(header(headers, PARTIAL_HEADERS.fileName) ?? ''),
    contentType: header(headers, PARTIAL_HEADERS.contentType) ?? '',
  };
}

/** The multipart body of one chunk: the file part `file` and nothing but fields after it. */
function chunkBody(request: FastifyRequest, chunkLength: number): ChunkBody {
  // One byte over the chunk is let through so that the exact-length counter sees, and refuses, a chunk that is too
  // long; a second file part trips the files limit (1005).
  const options = {
    limits: { fileSize: chunkLength + 1, files: 1, fields: 20, fieldSize: 64 * 1024, parts: 40 },
    throwFileSizeLimit: false,
  };
  const parts: AsyncIterableIterator<Multipart> = request.parts(options as Parameters<FastifyRequest['parts']>[0]);
  const next = async (): Promise<Multipart | undefined> => {
    try {
      const result = await parts.next();
      return result.done ? undefined : result.value;
    } catch (err) {
      if ((err as { code?: string }).code === 'FST_FILES_LIMIT')
        throw new ApiError(1005, 'send one file part per chunk');
      throw new ApiError(1061, (err as Error).message, { cause: err });
    }
  };
  return {
    async filePart(): Promise<Readable> {
      for (let part = await next(); part; part = await next()) {
        if (part.type !== 'file') continue;
        const file = part as MultipartFile;
        if (file.fieldname !== 'file') {
          file.file.resume();
          throw new ApiError(1062, `the chunk must be a file part named "file", not ${JSON.stringify(file.fieldname)}`);
        }
        return file.file;
      }
      throw new ApiError(1062, 'the chunk must be a file part named "file"');
    },
    async rest(): Promise<void> {
      for (let part = await next(); part; part = await next()) {
        if (part.type === 'file') {
          (part as MultipartFile).file.resume();
          throw new ApiError(1005, 'send one file part per chunk');
        }
      }
    },
  };
}

const chunkHeaders = z.object({
  'content-range': z.string().optional().describe('bytes start-end/total: zero-based, end inclusive'),
  [PARTIAL_HEADERS.contentLength]: z.string().optional().describe('size of the whole file in bytes'),
  [PARTIAL_HEADERS.contentType]: z.string().optional().describe('MIME type of the whole file'),
  [PARTIAL_HEADERS.fileName]: z.string().optional().describe('name of the whole file'),
  [PARTIAL_HEADERS.lastChunk]: z.string().optional().describe('true exactly when the chunk ends at total - 1'),
  [PARTIAL_HEADERS.token]: z
    .string()
    .optional()
    .describe('the partialToken of the previous answer; omitted on the first chunk'),
  [UPLOAD_HEADERS.folder]: z.string().optional().describe('target folder; the same on every chunk'),
});

export const uploadPartialRoutes: RouteModule = (app, ctx) => {
  // Assemblies run after their answer was sent; closing the app waits for them.
  const assemblies = new Set<Promise<void>>();
  app.addHook('onClose', async () => {
    await Promise.allSettled([...assemblies]);
  });
  const startAssembly = (sessionId: string): void => {
    const run = assemblePartialUpload(ctx, sessionId)
      .catch((err: unknown) => ctx.log.error({ err, partialUpload: sessionId }, 'chunked upload assembly failed'))
      .finally(() => assemblies.delete(run));
    assemblies.add(run);
  };

  const uploadLimit = uploadRateLimit(ctx);
  // Rule 6: the first chunk counts against the upload limit; a chunk with a valid continuation token does not.
  const allowList = async (request: FastifyRequest): Promise<boolean> => {
    if (uploadLimit.allowList(request)) return true;
    const token = header(request.headers, PARTIAL_HEADERS.token);
    return Boolean(token && request.auth && (await isValidContinuation(ctx, request.auth.user.id, token)));
  };

  app.post(
    '/api/upload/partial',
    {
      preValidation: requireUser(ctx),
      config: { rateLimit: { ...uploadLimit, allowList } },
      schema: {
        summary: 'Upload one file in chunks',
        description:
          'Multipart body with one file part named file holding exactly the bytes of Content-Range. The first chunk ' +
          '(no x-service-p-token) also carries the upload options (x-service-*). Non-final answers carry partialToken ' +
          'for the next chunk; the last answer carries the future link while the file is assembled in the background ' +
          '(GET /api/user/files/incomplete).',
        tags: ['files'],
        security: AUTHENTICATED,
        headers: chunkHeaders,
        consumes: ['multipart/form-data'],
        response: { 200: z.union([PartialChunkResponseSchema, FinalChunkResponseSchema]) },
      },
    },
    async (request, reply) => {
      let outcome: ChunkOutcome;
      try {
        if (request.headers[PARTIAL_HEADERS.identifier] !== undefined) throw new ApiError(1003, RETIRED_SCHEME);
        const chunk = parsePartialHeaders(request.headers);
        if (!request.isMultipart())
          throw new ApiError(1061, 'send the chunk as multipart/form-data with a file part named file');
        const user = caller(request).user;
        const body = chunkBody(request, chunk.position.end - chunk.position.start + 1);
        if (chunk.token === null) {
          const options = parseUploadOptions(request.headers, ctx.settings.get(), ctx.clock.now());
          const baseUrl = publicBaseUrl(ctx, request, options.domain ?? undefined);
          outcome = await receiveFirstChunk(ctx, { ...chunk, user, options, baseUrl, body });
        } else {
          const folder = header(request.headers, UPLOAD_HEADERS.folder);
          outcome = await receiveNextChunk(ctx, { ...chunk, token: chunk.token, user, folderId: folder || null, body });
        }
      } catch (err) {
        cutOffRequestBody(request, reply);
        throw err;
      }
      if (outcome.kind === 'partial')
        return { files: [], partialSuccess: true as const, partialToken: outcome.partialToken };
      // After the answer has gone (or the client has): the file is assembled in the background.
      reply.raw.once('close', () => startAssembly(outcome.sessionId));
      if (outcome.noJson) {
        // A text answer is not serialised by the JSON schema of 200.
        return reply.type('text/plain; charset=utf-8').send(`${outcome.answer.files[0]!.url}\n` as never);
      }
      return outcome.answer;
    },
  );
};
