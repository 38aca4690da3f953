// The plan of every answer with a stored file's bytes (/raw/<name>, /u/<name>, /s/<id>/raw, the owner's
// /api/user/files/:id/raw, and the fast path in front of them): its status and headers (representation, conditional
// requests, ranges, HEAD), the span of bytes, how the bytes are opened and what runs once they are (a view counted,
// the bytes of a last allowed view removed). One plan, one renderer (http/serving/send-bytes.ts): the fast path and
// the routes answer alike because they are the same code.
import type { Readable } from 'node:stream';
import { contentRange, parseRange, unsatisfiedRange, type RangeRequest } from '../../lib/formats/byte-range.js';
import { httpDate, ifRangeAllows, isNotModified } from '../../lib/formats/conditional.js';
import { contentDisposition } from '../../lib/formats/content-disposition.js';
import { servingPolicy, UPLOADED_BYTES_CSP } from '../../lib/formats/media-types.js';
import { then, type Eventually } from '../../lib/eventually.js';

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

/** What a request asks of a file's bytes, read from its method, headers and query. */
export interface BytesRequest {
  method: string;
  range: string | undefined;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
  ifRange: string | undefined;
  /** ?download: an attachment even where the type could be shown inline. */
  download: boolean;
}

/** Runs before the client can hold the last byte, and again if the answer closes early. */
export type BeforeLastByte = () => Promise<void>;

/** Where the bytes come from and what opening them means, as the caller of a plan decides it. */
export interface BytesSource {
  /** Cache-Control of the answer. */
  cacheControl: string;
  /** The bytes (the whole file, or one span of it), in memory or as a stream; missing bytes -> 4000. */
  open(span: ByteSpan | undefined): Eventually<Readable | Buffer>;
  /**
   * Runs once the bytes are open and before anything is sent (a view is counted here); what it returns runs before the
   * client can hold the last byte (the last allowed view deletes the bytes). Not called for HEAD, 304 or 416.
   */
  opened?(span: ByteSpan | undefined): Eventually<BeforeLastByte | undefined>;
}

/** An answer without a body of its own (304, 416, HEAD). */
interface HeadOnlyPlan {
  body: false;
  status: 200 | 206 | 304 | 416;
  headers: Record<string, string>;
}

/** An answer with the bytes: `length` of them, the file's span (or all of it). */
interface BodyPlan {
  body: true;
  status: 200 | 206;
  headers: Record<string, string>;
  span: ByteSpan | undefined;
  length: number;
  source: BytesSource;
}

export type BytesPlan = HeadOnlyPlan | BodyPlan;

/** A planned answer whose bytes are open: ready to be written. */
export interface OpenedBytes {
  plan: BytesPlan;
  body: Readable | Buffer | null;
  beforeLastByte: BeforeLastByte | undefined;
}

/** The strong ETag of a stored file's answers (its bytes never change under its id). */
export function storedFileEtag(file: Pick<StoredFile, 'id' | 'size'>): string {
  return `"${file.id}-${file.size.toString(36)}"`;
}

/** The headers of a file's answers of one kind (cache policy, inline or attachment). */
interface AnswerHeaders {
  /** What every answer carries (200, 206, 304, 416), but the type and length. */
  representation: Readonly<Record<string, string>>;
  /** The whole file's 200: the representation, its type and its length. */
  whole: Readonly<Record<string, string>>;
}

/**
 * Kept per record object and answer kind: the fast path's look-up hands out the same object while the record is
 * unchanged (db/sqlite/row-watch.ts), so its headers are built once, and the renderer reads the same object each time.
 */
const headersCache = new WeakMap<StoredFile, Map<string, AnswerHeaders>>();

function answerHeaders(file: StoredFile, cacheControl: string, download: boolean): AnswerHeaders {
  const key = `${download ? 'a' : 'i'}${cacheControl}`;
  let byKind = headersCache.get(file);
  const kept = byKind?.get(key);
  if (kept) return kept;
  const policy = servingPolicy(file.type);
  const attachment = download || !policy.inline;
  const representation = {
    'accept-ranges': 'bytes',
    etag: storedFileEtag(file),
    'last-modified': httpDate(file.created_at),
    'cache-control': cacheControl,
    'content-disposition': contentDisposition(attachment ? 'attachment' : 'inline', file.original_name ?? file.name),
    'x-content-type-options': 'nosniff',
    'content-security-policy': UPLOADED_BYTES_CSP,
  };
  const whole = { ...representation, 'content-type': policy.contentType, 'content-length': String(file.size) };
  const headers = { representation, whole };
  if (!byKind) headersCache.set(file, (byKind = new Map()));
  byKind.set(key, headers);
  return headers;
}

/** The answer to `request` for the bytes of `file`, coming from `source`. */
export function planBytes(file: StoredFile, request: BytesRequest, source: BytesSource): BytesPlan {
  const headers = answerHeaders(file, source.cacheControl, request.download);
  const head = request.method === 'HEAD';
  // The plain request (no condition, no range): the whole file, with headers built once per record.
  if (request.range === undefined && request.ifNoneMatch === undefined && request.ifModifiedSince === undefined) {
    if (head) return { body: false, status: 200, headers: headers.whole };
    return { body: true, status: 200, headers: headers.whole, span: undefined, length: file.size, source };
  }
  const etag = storedFileEtag(file);
  const { representation } = headers;
  const conditions = { 'if-none-match': request.ifNoneMatch, 'if-modified-since': request.ifModifiedSince };
  if (isNotModified(conditions, etag, file.created_at))
    return { body: false, status: 304, headers: { ...representation } };

  let range = parseRange(request.range, file.size);
  if (range.kind !== 'full' && !ifRangeAllows(request.ifRange, etag, file.created_at)) range = { kind: 'full' };
  if (range.kind === 'unsatisfiable') {
    const unsatisfied: Record<string, string> = { ...representation, 'content-range': unsatisfiedRange(file.size) };
    // An empty body says so; a HEAD answer describes no body of its own.
    if (!head) unsatisfied['content-length'] = '0';
    return { body: false, status: 416, headers: unsatisfied };
  }
  if (range.kind === 'full') {
    if (head) return { body: false, status: 200, headers: headers.whole };
    return { body: true, status: 200, headers: headers.whole, span: undefined, length: file.size, source };
  }
  const span = range;
  const length = span.end - span.start + 1;
  const partial = {
    ...representation,
    'content-type': headers.whole['content-type']!,
    'content-length': String(length),
    'content-range': contentRange(span.start, span.end, file.size),
  };
  if (head) return { body: false, status: 206, headers: partial };
  return { body: true, status: 206, headers: partial, span, length, source };
}

/**
 * Opens the planned bytes, then runs what opening them means (in that order, so that a counted view still gets its
 * bytes when a concurrent last view deletes them right after: a local file stays readable once open, on S3 the GET
 * has begun). Bytes in memory are written in one go, so what must run before the last byte runs here. Errors (missing
 * bytes -> 4000, no views left -> 4000) come before anything is written. Synchronous when every step is.
 */
export function openPlannedBytes(plan: BytesPlan): Eventually<OpenedBytes> {
  if (!plan.body) return { plan, body: null, beforeLastByte: undefined };
  const { source, span } = plan;
  // An empty file has nothing to open, but its view counts like any other.
  return then(plan.length === 0 ? null : source.open(span), (body) => {
    let after: Eventually<BeforeLastByte | undefined>;
    try {
      after = source.opened?.(span);
    } catch (err) {
      if (body !== null) closeBody(body);
      throw err;
    }
    const ready = (beforeLastByte: BeforeLastByte | undefined): Eventually<OpenedBytes> => {
      if (beforeLastByte === undefined || (body !== null && !Buffer.isBuffer(body)))
        return { plan, body, beforeLastByte };
      return beforeLastByte().then(() => ({ plan, body, beforeLastByte: undefined }));
    };
    if (!(after instanceof Promise)) return ready(after);
    return after.then(ready, (err: unknown) => {
      if (body !== null) closeBody(body);
      throw err;
    });
  });
}

function closeBody(body: Readable | Buffer): void {
  if (!Buffer.isBuffer(body)) body.destroy();
}
