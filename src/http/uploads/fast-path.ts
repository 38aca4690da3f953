// POST /api/upload answered before Fastify when it comes as ShareX, Flameshot, curl and scripts send it: an API token
// in Authorization, a multipart body, no query, links whose host needs no proxy header read, and a caller that no
// upload limit applies to. Fastify's routing, hooks, reply and @fastify/multipart cost a 4 KiB upload about a sixth
// of its main-thread CPU (bench/RESULTS.md); this path calls the same service with the same arguments instead.
//
// Everything that can refuse the request before its body is read runs first, with the route's own functions: the
// token, the options' headers, the links' host. When any of them refuses (or throws), the request goes to Fastify
// untouched and the route answers, so those errors are the route's. From the first byte of the body on, the answer is
// this module's: the route's schema serialises it, and errors have the spec's shape, the status of the error table
// and the lingering close of every refused upload (http/uploads/cut-off-body.ts). test/http/upload-fast-path.test.ts sends
// the same requests both ways and compares the answers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../lib/errors.js';
import { UploadResponseSchema } from '../../schemas/file.js';
import { uploadFiles, type IncomingFile } from '../../services/uploads/uploads.js';
import { authenticateToken, tokenFromHeader, type Authenticated } from '../auth.js';
import { cutOffBody } from './cut-off-body.js';
import { API_HEADERS } from '../api-headers.js';
import {
  declaredLength,
  FIELD_SIZE,
  FILE_FIELD,
  linksAsText,
  MAX_FILES_PER_REQUEST,
  wholeUploadLimits,
} from './multipart.js';
import { baseUrlOf } from '../links.js';
import { callerExempt } from '../rate-limit.js';
import { watchIdle } from '../slow-requests.js';
import type { App } from '../types.js';
import { parseUploadOptions } from './headers.js';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

const ROUTE = '/api/upload';

/**
 * Returns the handler that takes plain uploads (true: it answers the request) or leaves the request alone (false).
 * `fastify` is Fastify's own request listener, for the requests it hands on after a look at them.
 */
export function plainUploads(
  app: App,
  ctx: AppContext,
  fastify: Listener,
): (request: IncomingMessage, response: ServerResponse) => boolean {
  const server = app.server;
  const record = ctx.metrics.routeRecorder(ROUTE);
  // The links' host: the Host header, unless proxies are trusted to say another (then only with PUBLIC_URL).
  const readsProxyHeaders = ctx.config.TRUST_PROXY !== false && !ctx.config.PUBLIC_URL;

  async function take(request: IncomingMessage, response: ServerResponse, token: string, t0: number): Promise<void> {
    let auth: Authenticated;
    let options: ReturnType<typeof parseUploadOptions>;
    let baseUrl: string;
    try {
      auth = await authenticateToken(ctx, token, 'POST', ROUTE);
      options = parseUploadOptions(request.headers, ctx.settings.get(), ctx.clock.now());
      baseUrl = baseUrlOf(
        ctx,
        {
          protocol: (request.socket as Partial<TLSSocket>).encrypted ? 'https' : 'http',
          host: request.headers.host ?? '',
        },
        options.domain ?? undefined,
      );
    } catch {
      // The route refuses it (with the same functions), in the spec's shape.
      return fastify(request, response);
    }
    if (!callerExempt(ctx, auth.user) || !server.listening) return fastify(request, response);

    ctx.metrics.fastPathAnswers.value++;
    watchIdle({ request, response, log: app.log });
    response.once('finish', () => record('POST', response.statusCode, performance.now() - t0));
    try {
      const result = await uploadFiles(ctx, {
        user: auth.user,
        options,
        baseUrl,
        files: fileParts(request, MAX_FILES_PER_REQUEST),
        requestBytes: declaredLength(request.headers['content-length']),
      });
      const text = options.noJson
        ? linksAsText(result.files.map((f) => f.url))
        : JSON.stringify(UploadResponseSchema.parse(result));
      response.writeHead(200, {
        ...API_HEADERS,
        'content-type': options.noJson ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
      });
      response.end(text);
    } catch (err) {
      sendError(request, response, err);
    }
  }

  function sendError(request: IncomingMessage, response: ServerResponse, err: unknown): void {
    const error = err instanceof ApiError ? err : new ApiError(9004, undefined, { cause: err });
    if (error.statusCode >= 500) app.log.error({ err: error.cause ?? error, code: error.code }, error.message);
    if (response.headersSent || request.socket.destroyed) {
      response.destroy();
      return;
    }
    cutOffBody(request, response);
    const body = JSON.stringify(error.toBody());
    response.writeHead(error.statusCode, {
      ...API_HEADERS,
      ...error.headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  }

  return (request: IncomingMessage, response: ServerResponse): boolean => {
    if (request.url !== ROUTE || !server.listening || readsProxyHeaders) return false;
    const token = tokenFromHeader(request);
    if (!token || !hasBoundary(request.headers['content-type'])) return false;
    // A stopping server waits for it as for the routes' handlers.
    app.inFlightHandlers.track(take(request, response, token, performance.now()));
    return true;
  };
}

/** A multipart/form-data Content-Type with a boundary (anything else is the route's to refuse). */
function hasBoundary(contentType: string | undefined): boolean {
  return contentType !== undefined && /^multipart\/form-data\s*;(.*;)?\s*boundary=/i.test(contentType);
}

const END = Symbol('end of the parts');

/**
 * The file parts named `file` of a multipart request, in order, as http/uploads/multipart.ts's uploadFileParts() gives them
 * from @fastify/multipart, with the same answers to what the parser refuses: a malformed body, a field named after an
 * Object property, too many parts or fields -> 1061, one file part too many -> 413/9000.
 */
async function* fileParts(request: IncomingMessage, maxFiles: number): AsyncGenerator<IncomingFile> {
  const queue: Array<IncomingFile | ApiError | typeof END> = [];
  let wake: (() => void) | null = null;
  let current: Readable | null = null;
  let sawData = false;
  const push = (item: IncomingFile | ApiError | typeof END): void => {
    queue.push(item);
    wake?.();
  };
  /**
   * Ends the parts with the error the route gives (as partReader() in http/uploads/multipart.ts maps the parser's). With
   * `cause`, the part being read fails with it too, as @fastify/multipart fails it when the body breaks; a limit lets
   * it be read to its end first.
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
      // @fastify/multipart's default bound on parts, as the route has it.
      limits: { ...wholeUploadLimits(maxFiles), fieldSize: FIELD_SIZE, parts: 1000 },
    });
  } catch (err) {
    // A Content-Type busboy cannot read (an empty boundary ...): the parser's refusal, as the route gives it.
    throw refused((err as Error).message);
  }
  parser.on('file', (name: string, stream: Readable, fileName: string, _encoding: string, mimeType: string) => {
    // Errors of a part that is read later are its reader's (a part cut short: "terminated early").
    stream.on('error', () => undefined);
    if (name in Object.prototype) {
      stream.resume();
      return fail(refused('prototype property is not allowed as field name'));
    }
    if (name !== FILE_FIELD) {
      stream.resume();
      return;
    }
    current = stream;
    stream.once('close', () => {
      if (current === stream) current = null;
    });
    push({ stream, fileName, mimeType });
  });
  parser.on('field', (name: string) => {
    if (name in Object.prototype) fail(refused('prototype property is not allowed as field name'));
  });
  parser.on('filesLimit', () => fail(new ApiError(9000, `at most ${maxFiles} files per request`, { status: 413 })));
  parser.on('partsLimit', () => fail(refused('reach parts limit')));
  parser.on('fieldsLimit', () => fail(refused('reach fields limit')));
  parser.on('error', (err: Error) => {
    // An empty body is an empty form (no file part: the service's 1062), not a truncated one.
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
