// The one way a route answers with a stored file's bytes (/raw/<name>, /u/<name> and the owner's
// /api/user/files/:id/raw): representation headers, conditional requests (304), ranges (206/416), HEAD, and the
// bytes themselves, through the reused-buffer copy of http/serving/file-sender.ts when the datasource handed out a local file.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pipeline, type Readable } from 'node:stream';
import { contentRange, parseRange, unsatisfiedRange, type RangeRequest } from '../../lib/formats/byte-range.js';
import { httpDate, ifRangeAllows, isNotModified } from '../../lib/formats/conditional.js';
import { contentDisposition } from '../../lib/formats/content-disposition.js';
import { HoldLastChunk } from '../../lib/bytes/hold-last-chunk.js';
import { servingPolicy, UPLOADED_BYTES_CSP } from '../../lib/formats/media-types.js';
import { LocalFileStream, type OpenFileRange } from '../../storage/local-file-stream.js';
import { sendFileRange } from './file-sender.js';
import { markStoredBytes } from '../request-metrics.js';

/** What the answer says about the file (its bytes never change under its id). */
export interface StoredFile {
  id: string;
  name: string;
  original_name: string | null;
  type: string;
  size: number;
  created_at: number;
}

export type ByteSpan = Extract<RangeRequest, { kind: 'partial' }>;

export interface StoredBytesAnswer {
  /** Cache-Control of the answer. */
  cacheControl: string;
  /** ?download: an attachment even where the type could be shown inline. */
  download: boolean;
  /** The bytes (the whole file, or one span of it), in memory or as a stream; missing bytes -> 4000. */
  open(span: ByteSpan | undefined): Promise<Readable | Buffer>;
  /**
   * Runs once the bytes are open and before anything is sent (a view is counted here). What it returns runs before
   * the client can hold the last byte, and again when the response closes early (the last allowed view deletes the
   * bytes). Not called for HEAD, 304 or 416.
   */
  opened?(span: ByteSpan | undefined): Promise<(() => Promise<void>) | undefined>;
}

/** The strong ETag of a stored file's answers (its bytes never change under its id). */
export function storedFileEtag(file: Pick<StoredFile, 'id' | 'size'>): string {
  return `"${file.id}-${file.size.toString(36)}"`;
}

/** The headers that describe a stored file in every answer with it (200, 206, 304, 416), but its content type. */
export function storedFileHeaders(file: StoredFile, cacheControl: string, download: boolean): Record<string, string> {
  const attachment = download || !servingPolicy(file.type).inline;
  return {
    'accept-ranges': 'bytes',
    etag: storedFileEtag(file),
    'last-modified': httpDate(file.created_at),
    'cache-control': cacheControl,
    'content-disposition': contentDisposition(attachment ? 'attachment' : 'inline', file.original_name ?? file.name),
    'x-content-type-options': 'nosniff',
    'content-security-policy': UPLOADED_BYTES_CSP,
  };
}

export async function sendStoredBytes(
  request: FastifyRequest,
  reply: FastifyReply,
  file: StoredFile,
  answer: StoredBytesAnswer,
): Promise<FastifyReply> {
  const etag = storedFileEtag(file);
  const policy = servingPolicy(file.type);
  // Set only once the answer is decided, so that an error answer does not carry them.
  const representationHeaders = storedFileHeaders(file, answer.cacheControl, answer.download);
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
  const span = range.kind === 'partial' ? range : undefined;
  const respond = (): FastifyReply => {
    reply.headers(representationHeaders).header('content-type', policy.contentType);
    const length = span ? span.end - span.start + 1 : file.size;
    reply.header('content-length', String(length));
    if (request.method !== 'HEAD') markStoredBytes(reply, length);
    if (span) reply.code(206).header('content-range', contentRange(span.start, span.end, file.size));
    return reply;
  };
  if (request.method === 'HEAD') return respond().send();

  // The bytes are opened before `opened` runs, so that a counted view still gets them when a concurrent last view
  // deletes them right after (a local file stays readable once open; on S3 the GET has at least begun).
  const body = file.size > 0 ? await answer.open(span) : null;
  let beforeLastByte: (() => Promise<void>) | undefined;
  try {
    beforeLastByte = await answer.opened?.(span);
  } catch (err) {
    if (body !== null && !Buffer.isBuffer(body)) body.destroy();
    throw err;
  }
  if (body === null || Buffer.isBuffer(body)) {
    await beforeLastByte?.();
    return respond().send(body ?? '');
  }
  if (beforeLastByte) reply.raw.once('close', () => void beforeLastByte());
  const openFile = body instanceof LocalFileStream ? body.takeFile() : null;
  if (openFile) return sendOpenFile(respond(), openFile, beforeLastByte);
  if (!beforeLastByte) return respond().send(body);
  const held = new HoldLastChunk(beforeLastByte);
  pipeline(body, held, () => undefined);
  return respond().send(held);
}

/**
 * Sends a local file by copying it to the socket through reused buffers (http/serving/file-sender.ts), which takes about half
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

/** A thumbnail (a small WebP made by Chute itself, services/media/thumbnails.ts). */
export function sendThumbnail(
  request: FastifyRequest,
  reply: FastifyReply,
  bytes: Readable,
  cacheControl: string,
): FastifyReply {
  const head = request.method === 'HEAD';
  if (head) bytes.destroy();
  return reply
    .type('image/webp')
    .header('cache-control', cacheControl)
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', UPLOADED_BYTES_CSP)
    .send(head ? undefined : bytes);
}
