// The one renderer of answers with a stored file's bytes: it writes what services/serving/bytes-plan.ts planned (status,
// headers, the bytes opened) onto Node's response, for the routes (/raw/<name>, /u/<name>, /s/<id>/raw, the owner's
// /api/user/files/:id/raw) and for the fast path in front of them (http/serving/fast-path.ts) alike. A local file is
// copied through reused buffers (http/serving/file-sender.ts), other bodies are piped.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import { HoldLastChunk } from '../../lib/bytes/hold-last-chunk.js';
import { UPLOADED_BYTES_CSP } from '../../lib/formats/media-types.js';
import {
  openPlannedBytes,
  type BytesPlan,
  type BytesRequest,
  type OpenedBytes,
} from '../../services/serving/bytes-plan.js';
import { LocalFileStream } from '../../storage/local-file-stream.js';
import { sendFileRange } from './file-sender.js';
import { markStoredBytes } from '../request-metrics.js';

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** What a request asks of a stored file's bytes: its method, its range and conditions, and ?download. */
export function bytesRequestOf(
  request: { method?: string | undefined; headers: IncomingHttpHeaders },
  download: boolean,
): BytesRequest {
  const { headers } = request;
  return {
    method: request.method ?? 'GET',
    range: headers.range,
    ifNoneMatch: first(headers['if-none-match']),
    ifModifiedSince: headers['if-modified-since'],
    ifRange: first(headers['if-range']),
    download,
  };
}

/**
 * A route's answer with the planned bytes. The bytes are opened first, so that what refuses them (missing bytes, no
 * views left) answers through the route's error handler; then the reply is hijacked and written by writeOpenedBytes,
 * with the headers set on the reply so far (the API's) under the plan's own.
 */
export async function sendPlannedBytes(reply: FastifyReply, plan: BytesPlan): Promise<FastifyReply> {
  const opened = await openPlannedBytes(plan);
  if (plan.body) markStoredBytes(reply, plan.length);
  const before = reply.getHeaders() as OutgoingHttpHeaders;
  try {
    writeOpenedBytes(reply.raw, opened, reply.log, before);
  } catch (err) {
    // Node refused a header before anything was written: the route's error handler answers.
    if (opened.body !== null && !Buffer.isBuffer(opened.body)) opened.body.destroy();
    throw err;
  }
  reply.hijack();
  return reply;
}

/**
 * Writes an opened answer: its status and headers (over `before`), then its bytes. Throws before anything is written
 * when Node refuses a header value.
 */
export function writeOpenedBytes(
  res: ServerResponse,
  { plan, body, beforeLastByte }: OpenedBytes,
  log: Pick<FastifyBaseLogger, 'error' | 'warn'>,
  before?: OutgoingHttpHeaders,
): void {
  res.writeHead(plan.status, before ? { ...withoutUndefined(before), ...plan.headers } : plan.headers);
  if (body === null || Buffer.isBuffer(body)) {
    res.end(body ?? undefined);
    return;
  }
  if (beforeLastByte) res.once('close', () => void beforeLastByte());
  const openFile = body instanceof LocalFileStream ? body.takeFile() : null;
  if (openFile) {
    sendFileRange(res, openFile, beforeLastByte ? { beforeLastChunk: beforeLastByte } : {}).catch((err: unknown) => {
      log.error({ err }, 'sending a file failed midway: the response was cut off');
    });
    return;
  }
  // pipeline() destroys the response when the bytes fail midway: the client sees a cut-off body, never a short one
  // that looks whole. A client that went away is not worth a log line.
  const cutOff = (err: NodeJS.ErrnoException | null): void => {
    if (err && err.code !== 'ERR_STREAM_PREMATURE_CLOSE')
      log.warn({ err }, 'streaming a file failed midway: the response was cut off');
  };
  if (beforeLastByte) pipeline(body, new HoldLastChunk(beforeLastByte), res, cutOff);
  else pipeline(body, res, cutOff);
}

function withoutUndefined(headers: OutgoingHttpHeaders): Record<string, string | number | string[]> {
  const out: Record<string, string | number | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value;
  return out;
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
