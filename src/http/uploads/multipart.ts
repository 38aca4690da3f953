// The multipart adaptor of every upload route: the one reader of multipart bodies (busboy over Node's request, for the
// routes and the uploads' fast path alike), the file parts of a whole upload and of a chunk as the upload services read
// them, and the steps every upload route shares (cutting off a refused body, the links as text).
import { Busboy } from '@fastify/busboy';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../lib/errors.js';
import type { UploadResponse } from '../../schemas/file.js';
import type { ChunkBody } from '../../services/uploads/chunked.js';
import { uploadFiles, type IncomingFile, type UploadOptions } from '../../services/uploads/store-files.js';
import { cutOffRequestBody } from './cut-off-body.js';
import { publicBaseUrl } from '../links.js';

/** Most file parts in one upload request. */
export const MAX_FILES_PER_REQUEST = 100;

/** The form field of a file part; other file parts are refused (chunks) or skipped (whole uploads). */
export const FILE_FIELD = 'file';

/** Largest value of a field (not a file) the parser reads. */
export const FIELD_SIZE = 64 * 1024;

export interface PartLimits {
  /** Most file parts; one more -> the reader's tooManyFiles error. */
  files: number;
  /** Largest file part the parser lets through (it truncates silently: the services count bytes themselves). */
  fileSize: number;
  fields: number;
  parts?: number;
}

/** The parser's limits for a whole upload's parts. */
export function wholeUploadLimits(maxFiles: number): PartLimits {
  return { files: maxFiles, fileSize: Number.MAX_SAFE_INTEGER, fields: 100 };
}

/**
 * The multipart body of one chunk of a chunked upload: the file part `file` (another file part before it -> 1062, a
 * second one -> 1005) and nothing but fields after it; a malformed body -> 1061.
 */
export function chunkBody(request: IncomingMessage, chunkLength: number): ChunkBody {
  // One byte over the chunk is let through so that the exact-length counter sees, and refuses, a chunk that is too
  // long; a second file part trips the files limit (1005).
  const limits = { files: 1, fileSize: chunkLength + 1, fields: 20, parts: 40 };
  const parts = multipartFileParts(request, limits, () => new ApiError(1005, 'send one file part per chunk'));
  return {
    async filePart(): Promise<Readable> {
      const { value: part, done } = await parts.next();
      if (done) throw new ApiError(1062, 'the chunk must be a file part named "file"');
      if (part.field !== FILE_FIELD) {
        part.stream.resume();
        throw new ApiError(1062, `the chunk must be a file part named "file", not ${JSON.stringify(part.field)}`);
      }
      return part.stream;
    },
    async rest(): Promise<void> {
      const { value: part, done } = await parts.next();
      if (done) return;
      part.stream.resume();
      throw new ApiError(1005, 'send one file part per chunk');
    },
  };
}

/** Requests whose body Fastify let through as multipart/form-data, for the route to read (acceptMultipartBodies). */
const multipartRequests = new WeakSet<FastifyRequest>();

/**
 * Lets multipart/form-data bodies through Fastify's body parsing unread: the upload routes read them themselves, with
 * multipartFileParts() (a body of another type is refused by the parsing, or by assertMultipart).
 */
export function acceptMultipartBodies(app: FastifyInstance): void {
  app.addContentTypeParser('multipart/form-data', (request, _payload, done) => {
    multipartRequests.add(request);
    done(null);
  });
}

/** Not a multipart body -> 1061, saying what to send. */
export function assertMultipart(
  request: FastifyRequest,
  what = 'send multipart/form-data with parts named file',
): void {
  if (!multipartRequests.has(request)) throw new ApiError(1061, what);
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
    files: fileParts(request.raw, upload.maxFiles),
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

/** A multipart/form-data Content-Type with a boundary (anything else is the route's to refuse). */
export function hasBoundary(contentType: string | undefined): boolean {
  return contentType !== undefined && /^multipart\/form-data\s*;(.*;)?\s*boundary=/i.test(contentType);
}

/**
 * The file parts named `file` of a whole upload's multipart body, in order; other fields and file parts are skipped.
 * The parser puts no size limit on a file: the upload service enforces the size limit and the quota while it streams
 * (a parser limit would silently truncate). One file part too many -> 413/9000.
 */
export async function* fileParts(request: IncomingMessage, maxFiles: number): AsyncGenerator<IncomingFile> {
  const tooMany = () => new ApiError(9000, `at most ${maxFiles} files per request`, { status: 413 });
  for await (const part of multipartFileParts(request, wholeUploadLimits(maxFiles), tooMany)) {
    if (part.field !== FILE_FIELD) {
      part.stream.resume();
      continue;
    }
    yield { stream: part.stream, fileName: part.fileName, mimeType: part.mimeType };
  }
}

/** A file part of a multipart body: its form field, and its bytes to be read once. */
interface FilePart extends IncomingFile {
  field: string;
}

const END = Symbol('end of the parts');

/**
 * The file parts of a multipart body, in order, read with busboy (the parser @fastify/multipart runs on) from Node's
 * request: the one multipart reader of every upload route and of the uploads' fast path. Each part is to be read (or
 * resumed) before the next comes. What the parser refuses is the client's mistake, never a 500, in
 * @fastify/multipart's words: a malformed body, a field named after an Object property, too many parts or fields ->
 * 1061; one file part past `limits.files` -> `tooManyFiles()`.
 */
async function* multipartFileParts(
  request: IncomingMessage,
  limits: PartLimits,
  tooManyFiles: () => ApiError,
): AsyncGenerator<FilePart> {
  const queue: Array<FilePart | ApiError | typeof END> = [];
  let wake: (() => void) | null = null;
  let current: Readable | null = null;
  let sawData = false;
  const push = (item: FilePart | ApiError | typeof END): void => {
    queue.push(item);
    wake?.();
  };
  /**
   * Ends the parts with `error`. With `cause`, the part being read fails with it too, as @fastify/multipart fails it
   * when the body breaks; a limit lets it be read to its end first.
   */
  const fail = (error: ApiError, cause?: Error): void => {
    if (cause) current?.destroy(cause);
    push(error);
  };
  const refused = (message: string): ApiError => new ApiError(1061, message);

  let parser: ReturnType<typeof Busboy>;
  try {
    parser = new Busboy({
      headers: request.headers as { 'content-type': string },
      // @fastify/multipart's default bound on parts.
      limits: { parts: 1000, ...limits, fieldSize: FIELD_SIZE },
    });
  } catch (err) {
    // A Content-Type busboy cannot read (an empty boundary ...): the parser's refusal.
    throw refused((err as Error).message);
  }
  parser.on('file', (field: string, stream: Readable, fileName: string, _encoding: string, mimeType: string) => {
    // Errors of a part that is read later are its reader's (a part cut short: "terminated early").
    stream.on('error', () => undefined);
    if (field in Object.prototype) {
      stream.resume();
      return fail(refused('prototype property is not allowed as field name'));
    }
    current = stream;
    stream.once('close', () => {
      if (current === stream) current = null;
    });
    push({ field, stream, fileName, mimeType });
  });
  parser.on('field', (name: string) => {
    if (name in Object.prototype) fail(refused('prototype property is not allowed as field name'));
  });
  parser.on('filesLimit', () => fail(tooManyFiles()));
  parser.on('partsLimit', () => fail(refused('reach parts limit')));
  parser.on('fieldsLimit', () => fail(refused('reach fields limit')));
  parser.on('error', (err: Error) => {
    // An empty body is an empty form (no file part), not a truncated one.
    if (!sawData && err.message === 'Unexpected end of multipart data') push(END);
    else fail(refused(err.message), err);
  });
  parser.on('finish', () => push(END));
  request.once('data', () => (sawData = true));
  request.once('close', () => {
    if (request.readableEnded) return;
    const message = 'the request was closed before the multipart data was fully parsed';
    fail(refused(message), Object.assign(new Error(message), { code: 'FST_MP_PREMATURE_CLOSE' }));
  });
  request.pipe(parser);

  for (;;) {
    const item = queue.shift();
    if (item === undefined) {
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
      continue;
    }
    if (item === END) return;
    if (item instanceof ApiError) throw item;
    yield item;
  }
}
