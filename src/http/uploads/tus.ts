// tus 1.0 (tus.io) at /api/upload/tus, served by @tus/server inside Fastify: this module is the glue. Fastify
// authenticates (routes/uploads/upload-tus.ts) and hands the untouched request to the tus Server; ChuteTusStore, its data
// store, calls services/uploads/tus.ts, which keeps every upload in the database over the datasource. What a store
// call needs of the request (the caller, the headers, the links' base) travels in an AsyncLocalStorage, since
// @tus/server passes store methods only an id. Failures answer in the spec's error shape, with the tus status, and
// the lingering close of every refused upload (http/uploads/cut-off-body.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { DataStore, Metadata, Server, Upload } from '@tus/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { UserRow } from '../../db/schema/tables.js';
import { toIso } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/security/ids.js';
import { discardIdleUploadSessions } from '../../services/uploads/assembly.js';
import {
  appendToTusUpload,
  createTusUpload,
  getTusUpload,
  parseTusChecksum,
  terminateTusUpload,
  TUS_CHECKSUM_ALGORITHMS,
  TUS_UPLOAD_TTL_MS,
  type TusFinishedFile,
  type TusUploadInfo,
} from '../../services/uploads/tus.js';
import { sendApiError, toApiError } from '../errors.js';
import { publicBaseUrl } from '../links.js';
import { cutOffRequestBody } from './cut-off-body.js';
import { parseUploadOptions } from './headers.js';

export const TUS_PATH = '/api/upload/tus';

/** The extensions served (Tus-Extension). */
export const TUS_EXTENSIONS = ['creation', 'creation-with-upload', 'expiration', 'checksum', 'termination'];

/** Answer headers that name the file a finished upload became (on the last PATCH, and on HEAD afterwards). */
export const TUS_FILE_HEADERS = {
  id: 'chute-file-id',
  name: 'chute-file-name',
  url: 'chute-file-url',
  rawUrl: 'chute-file-raw-url',
} as const;

/** One tus request as the store sees it. */
interface TusCall {
  ctx: AppContext;
  request: FastifyRequest;
  /** The request body as a Node stream (made on first use): see requestBody(). */
  body: Readable | null;
  user: UserRow | null;
  /** The upload's id from the path (none for OPTIONS and creation). */
  id: string | undefined;
  /** Set when the upload turned out (or became) finished: its file. */
  file: TusFinishedFile | null;
  /** What a store call threw, answered in the spec's shape. */
  error: ApiError | null;
}

const calls = new AsyncLocalStorage<TusCall>();

function currentCall(): TusCall {
  const call = calls.getStore();
  if (!call) throw new Error('a tus store call outside a request');
  return call;
}

function caller(call: TusCall): UserRow {
  if (!call.user) throw new ApiError(2002);
  return call.user;
}

/**
 * Upload-Metadata keys that are upload options: the option headers' own names (x-service-deletes-at, ...; or their
 * x-zipline-* names), turned back into header values (UTF-8 bytes as latin1, as HTTP delivers them). A header sent
 * with the creation request wins over a metadata key of the same name.
 */
function optionHeaders(metadata: Record<string, string | null>, headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const merged: IncomingHttpHeaders = {};
  for (const [key, value] of Object.entries(metadata)) {
    const name = key.toLowerCase();
    if (name.startsWith('x-service-') || name.startsWith('x-zipline-')) {
      merged[name] = Buffer.from(value ?? '', 'utf8').toString('latin1');
    }
  }
  return { ...merged, ...headers };
}

function toUpload(info: TusUploadInfo): Upload {
  return new Upload({
    id: info.id,
    size: info.length,
    offset: info.offset,
    metadata: info.uploadMetadata ? Metadata.parse(info.uploadMetadata) : undefined,
    // A finished upload is a file and no longer expires as an upload.
    creation_date: info.file ? undefined : toIso(info.createdAt),
  });
}

/** @tus/server's data store over Chute's uploads (services/uploads/tus.ts). */
export class ChuteTusStore extends DataStore {
  constructor(private readonly ctx: AppContext) {
    super();
    this.extensions = TUS_EXTENSIONS;
  }

  override async create(upload: Upload): Promise<Upload> {
    const call = currentCall();
    const { ctx, request } = call;
    const metadata = upload.metadata ?? {};
    const options = parseUploadOptions(optionHeaders(metadata, request.headers), ctx.settings.get(), ctx.clock.now());
    const info = await createTusUpload(ctx, {
      id: upload.id,
      user: caller(call),
      length: upload.size ?? 0,
      options,
      baseUrl: publicBaseUrl(ctx, request, options.domain ?? undefined),
      fileName: metadata.filename ?? metadata.name ?? '',
      contentType: metadata.filetype ?? metadata.type ?? '',
      uploadMetadata: headerValue(request.headers['upload-metadata']) ?? null,
    });
    upload.creation_date = toIso(info.createdAt);
    call.file = info.file;
    return upload;
  }

  override async getUpload(id: string): Promise<Upload> {
    const call = currentCall();
    const info = await getTusUpload(call.ctx, caller(call).id, id, publicBaseUrl(call.ctx, call.request));
    call.file = info.file;
    return toUpload(info);
  }

  override async write(stream: Readable, id: string, offset: number): Promise<number> {
    const call = currentCall();
    // The tus handler's own stream is empty (see handleTusRequest): the bytes are read from the Node request.
    stream.resume();
    call.body ??= requestBody(call.request.raw);
    const checksum = parseTusChecksum(headerValue(call.request.headers['upload-checksum']));
    const info = await appendToTusUpload(call.ctx, {
      user: caller(call),
      id,
      offset,
      body: call.body,
      checksum,
      baseUrl: publicBaseUrl(call.ctx, call.request),
    });
    call.file = info.file;
    return info.offset;
  }

  override async remove(id: string): Promise<void> {
    const call = currentCall();
    await terminateTusUpload(call.ctx, caller(call).id, id);
  }

  override async deleteExpired(): Promise<number> {
    return discardIdleUploadSessions(this.ctx);
  }

  override getExpiration(): number {
    return TUS_UPLOAD_TTL_MS;
  }
}

/**
 * The body of a PATCH (or of a creation with upload) straight from Node's request: a client that goes away ends it
 * where the bytes stopped, instead of failing it, so that what arrived is kept (tus: the offset then says where to
 * go on). Node streams all the way: a web ReadableStream in between costs about a third of the throughput and lets
 * memory grow (bench/RESULTS.md).
 */
function requestBody(raw: IncomingMessage): Readable {
  const body = new PassThrough();
  const cutOff = () => {
    raw.unpipe(body);
    if (!body.writableEnded) body.end();
  };
  raw.once('aborted', cutOff);
  raw.once('error', cutOff);
  raw.once('close', () => {
    if (!raw.complete) cutOff();
  });
  raw.pipe(body);
  return body;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The tus Server of one app. */
export function createTusServer(ctx: AppContext): Server {
  return new Server({
    path: TUS_PATH,
    datastore: new ChuteTusStore(ctx),
    namingFunction: () => newId(),
    // The id comes from Fastify's route parameter, never from parsing the URL again.
    getFileIdFromRequest: () => calls.getStore()?.id,
    generateUrl: (_req, { id }) => `${publicBaseUrl(ctx, currentCall().request)}${TUS_PATH}/${id}`,
    // The API is same-origin only, tus included: no CORS headers.
    allowedOrigins: () => false,
    // A finished upload is a file: DELETE it through /api/user/files.
    disableTerminationForFinishedUploads: true,
    onResponseError: (_req, err) => {
      const call = calls.getStore();
      if (call && err instanceof Error) call.error = toApiError(err, call.request);
      return undefined;
    },
  });
}

/** A tus error ({status_code, body}) in the spec's shape, keeping its status. */
function tusError(status: number, body: string): ApiError {
  const text = body.trim() || undefined;
  if (status === 413) return new ApiError(5001, text);
  if (status === 404 || status === 410) return new ApiError(9002, text, { status });
  // An extension not served (concatenation, deferred length): the request is the client's to change.
  if (status === 501) return new ApiError(9000, `${text ?? 'not supported'} (served: ${TUS_EXTENSIONS.join(', ')})`);
  if (status >= 500) return new ApiError(9004, text);
  return new ApiError(9000, text, { status });
}

/**
 * The request as @tus/server reads it: method, URL and headers, without a body (ChuteTusStore.write reads the bytes
 * from Node's request itself), and with the Node request attached as srvx does (`runtime.node`), so that the tus
 * handler notices a client that goes away.
 */
function bodilessRequest(request: FastifyRequest, reply: FastifyReply): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.raw.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const web = new Request(`http://localhost${request.url}`, { method: request.method, headers });
  Object.defineProperty(web, 'runtime', { value: { name: 'node', node: { req: request.raw, res: reply.raw } } });
  return web;
}

/** Passes one authenticated (or OPTIONS) request to the tus Server and sends its answer through Fastify. */
export async function handleTusRequest(
  ctx: AppContext,
  tus: Server,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const call: TusCall = {
    ctx,
    request,
    body: null,
    user: request.auth?.user ?? null,
    id: (request.params as { id?: string } | undefined)?.id,
    file: null,
    error: null,
  };
  const response = await calls.run(call, () => tus.handleWeb(bodilessRequest(request, reply)));
  for (const [name, value] of response.headers) {
    // No CORS (the API is same-origin): @tus/server's Access-Control-Expose-Headers would only be noise. Nor the
    // Connection: close it puts on every refused PATCH: Node would close the socket as soon as the answer is written,
    // while the client is still sending, and the client would see EPIPE instead of the answer (cut-off-body.ts).
    if (name !== 'content-length' && name !== 'connection' && !name.startsWith('access-control-')) {
      reply.header(name, value);
    }
  }
  if (request.method === 'OPTIONS') {
    reply.header('tus-checksum-algorithm', TUS_CHECKSUM_ALGORITHMS.join(','));
    // The size limit; an Upload-Length above it answers 413 (5001) from the service, in the words of every upload.
    reply.header('tus-max-size', String(ctx.settings.get().filesMaxFileSize));
  }
  if (response.status >= 400) {
    const body = await response.text();
    // Like every refused upload: what is left of the body is read and discarded within a bound, then cut off.
    cutOffRequestBody(request, reply);
    return sendApiError(reply, call.error ?? tusError(response.status, body));
  }
  if (call.file) {
    reply.header(TUS_FILE_HEADERS.id, call.file.id);
    reply.header(TUS_FILE_HEADERS.name, encodeURIComponent(call.file.name));
    reply.header(TUS_FILE_HEADERS.url, call.file.url);
    reply.header(TUS_FILE_HEADERS.rawUrl, call.file.rawUrl);
  }
  const body = await response.text();
  return reply.code(response.status).send(body === '' ? undefined : body);
}
