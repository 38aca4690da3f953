// The multipart adaptor of every upload route: the file parts of a request as the upload services read them, and
// the one way a route receives an upload (POST /api/upload, a public folder's uploads) and answers it.
import type { Multipart, MultipartFile } from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../lib/errors.js';
import type { UploadResponse } from '../../schemas/file.js';
import type { ChunkBody } from '../../services/uploads/chunked.js';
import { uploadFiles, type IncomingFile, type UploadOptions } from '../../services/uploads/uploads.js';
import { cutOffRequestBody } from './cut-off-body.js';
import { publicBaseUrl } from '../links.js';

/** Most file parts in one upload request. */
export const MAX_FILES_PER_REQUEST = 100;

/** The form field of a file part; other file parts are refused (chunks) or skipped (whole uploads). */
export const FILE_FIELD = 'file';

/** Largest value of a field (not a file) the parser reads. */
export const FIELD_SIZE = 64 * 1024;

export interface PartLimits {
  /** Most file parts; one more -> the parser's FST_FILES_LIMIT. */
  files: number;
  /** Largest file part the parser lets through (it truncates silently: the services count bytes themselves). */
  fileSize: number;
  fields: number;
  parts?: number;
}

/**
 * The parts of a multipart request, one at a time; `undefined` after the last. Whatever the parser refuses (no
 * boundary, a body that ends early, a malformed part header) is the client's mistake: 1061, or 1005 for one file part
 * too many, never a 500.
 */
function partReader(request: FastifyRequest, limits: PartLimits): () => Promise<Multipart | undefined> {
  const options = { limits: { ...limits, fieldSize: FIELD_SIZE }, throwFileSizeLimit: false };
  let parts: AsyncIterableIterator<Multipart> | undefined;
  return async () => {
    try {
      parts ??= request.parts(options as Parameters<FastifyRequest['parts']>[0]);
      const result = await parts.next();
      return result.done ? undefined : result.value;
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if ((err as { code?: string }).code === 'FST_FILES_LIMIT') {
        if (limits.files === 1) throw new ApiError(1005, 'send one file part per chunk', { cause: err });
        throw new ApiError(9000, `at most ${limits.files} files per request`, { status: 413, cause: err });
      }
      throw new ApiError(1061, (err as Error).message, { cause: err });
    }
  };
}

/** Drains a file part that is not read. */
function skip(part: Multipart): void {
  (part as MultipartFile).file.resume();
}

/**
 * The parts named `file`, in order; other fields and other file parts are drained and skipped. The parser puts no size
 * limit on a file: the upload service enforces the size limit and the quota while it streams (a parser limit would
 * silently truncate).
 */
export async function* uploadFileParts(request: FastifyRequest, maxFiles: number): AsyncGenerator<IncomingFile> {
  const next = partReader(request, wholeUploadLimits(maxFiles));
  for (let part = await next(); part; part = await next()) {
    if (part.type !== 'file') continue;
    const file = part as MultipartFile;
    if (file.fieldname !== FILE_FIELD) {
      skip(file);
      continue;
    }
    yield { stream: file.file, fileName: file.filename, mimeType: file.mimetype };
  }
}

/** The parser's limits for a whole upload's parts (also the uploads' fast path's, http/uploads/fast-path.ts). */
export function wholeUploadLimits(maxFiles: number): PartLimits {
  return { files: maxFiles, fileSize: Number.MAX_SAFE_INTEGER, fields: 100 };
}

/**
 * The multipart body of one chunk of a chunked upload: the file part `file` (another file part before it -> 1062, a
 * second one -> 1005) and nothing but fields after it; a malformed body -> 1061.
 */
export function chunkBody(request: FastifyRequest, chunkLength: number): ChunkBody {
  // One byte over the chunk is let through so that the exact-length counter sees, and refuses, a chunk that is too
  // long; a second file part trips the files limit (1005).
  const next = partReader(request, { files: 1, fileSize: chunkLength + 1, fields: 20, parts: 40 });
  return {
    async filePart(): Promise<Readable> {
      for (let part = await next(); part; part = await next()) {
        if (part.type !== 'file') continue;
        const file = part as MultipartFile;
        if (file.fieldname !== FILE_FIELD) {
          skip(file);
          throw new ApiError(1062, `the chunk must be a file part named "file", not ${JSON.stringify(file.fieldname)}`);
        }
        return file.file;
      }
      throw new ApiError(1062, 'the chunk must be a file part named "file"');
    },
    async rest(): Promise<void> {
      for (let part = await next(); part; part = await next()) {
        if (part.type === 'file') {
          skip(part);
          throw new ApiError(1005, 'send one file part per chunk');
        }
      }
    },
  };
}

/** Not a multipart body -> 1061, saying what to send. */
export function assertMultipart(
  request: FastifyRequest,
  what = 'send multipart/form-data with parts named file',
): void {
  if (!request.isMultipart()) throw new ApiError(1061, what);
}

/**
 * Runs the receiving step of an upload request. Whatever fails (refused, size, quota, a bad header), the rest of the
 * body is cut off rather than read: the client may be sending gigabytes that will not be kept.
 */
export async function receiving<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  receive: () => Promise<T>,
): Promise<T> {
  try {
    return await receive();
  } catch (err) {
    cutOffRequestBody(request, reply);
    throw err;
  }
}

/** Stores the file parts of a multipart upload for `user` with `options` (x-service-domain picks the links' host). */
export function storeUploadParts(
  ctx: AppContext,
  request: FastifyRequest,
  upload: { user: { id: string }; options: UploadOptions; maxFiles: number },
): Promise<UploadResponse> {
  return uploadFiles(ctx, {
    user: upload.user,
    options: upload.options,
    baseUrl: publicBaseUrl(ctx, request, upload.options.domain ?? undefined),
    files: uploadFileParts(request, upload.maxFiles),
    requestBytes: declaredLength(request.headers['content-length']),
  });
}

/** A request's Content-Length as a number, or undefined when it has none (chunked) or it is not one. */
export function declaredLength(header: string | undefined): number | undefined {
  if (header === undefined || !/^\d{1,15}$/.test(header)) return undefined;
  return Number(header);
}

/** The x-service-no-json answer of an upload: its links as text, joined with ",". */
export function sendLinksAsText<T>(reply: FastifyReply, links: string[]): T {
  // A text answer is not serialised by the JSON schema of 200.
  return reply.type('text/plain; charset=utf-8').send(linksAsText(links)) as unknown as T;
}

/** An upload's links as the x-service-no-json answer gives them. */
export function linksAsText(links: string[]): string {
  // Joined with "," as Zipline's upload route does (its docs say one per line; its clients read the code's shape).
  return links.join(',');
}
