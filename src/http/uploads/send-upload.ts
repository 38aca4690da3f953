// The one way a whole upload (POST /api/upload) is received and answered, for the route and the uploads' fast path
// (http/uploads/fast-path.ts) alike: from the first byte of the body on, its file parts (http/uploads/multipart.ts)
// go to the upload service, and its answer (the links, or an error in the spec's shape with the lingering close of
// every refused upload, http/uploads/cut-off-body.ts) is written here. What refuses a request before its body (the
// caller, the options' headers, the links' host) is the route's to answer.
import type { FastifyBaseLogger } from 'fastify';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../lib/errors.js';
import { UploadResponseSchema } from '../../schemas/file.js';
import { uploadFiles, type UploadOptions } from '../../services/uploads/store-files.js';
import { cutOffBody } from './cut-off-body.js';
import { declaredLength, fileParts, linksAsText, MAX_FILES_PER_REQUEST } from './multipart.js';

/** Who uploads, with what options, and the host of the links handed back. */
export interface UploadCall {
  user: { id: string };
  options: UploadOptions;
  baseUrl: string;
}

/**
 * Reads the request's file parts into storage for `call` and writes the answer: the upload's files as JSON (the
 * route's schema), or with x-service-no-json their links as text; any failure as the spec's error. `before`: the
 * headers every answer of the route carries (the API's, a rate limit's).
 */
export async function receiveUpload(
  ctx: AppContext,
  request: IncomingMessage,
  response: ServerResponse,
  call: UploadCall,
  before: OutgoingHttpHeaders,
  log: Pick<FastifyBaseLogger, 'error'>,
): Promise<void> {
  try {
    const result = await uploadFiles(ctx, {
      ...call,
      files: fileParts(request, MAX_FILES_PER_REQUEST),
      requestBytes: declaredLength(request.headers['content-length']),
    });
    const text = call.options.noJson
      ? linksAsText(result.files.map((f) => f.url))
      : JSON.stringify(UploadResponseSchema.parse(result));
    response.writeHead(200, {
      ...before,
      'content-type': call.options.noJson ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
  } catch (err) {
    writeUploadError(request, response, err, before, log);
  }
}

/** A refused or failed upload's answer; the rest of its body is read and discarded for a while, then cut off. */
function writeUploadError(
  request: IncomingMessage,
  response: ServerResponse,
  err: unknown,
  before: OutgoingHttpHeaders,
  log: Pick<FastifyBaseLogger, 'error'>,
): void {
  const error = err instanceof ApiError ? err : new ApiError(9004, undefined, { cause: err });
  // 6xxx and 9004 are logged in full, with the cause that produced them.
  if (error.statusCode >= 500) log.error({ err: error.cause ?? error, code: error.code }, error.message);
  if (response.headersSent || request.socket.destroyed) {
    response.destroy();
    return;
  }
  cutOffBody(request, response);
  const body = JSON.stringify(error.toBody());
  response.writeHead(error.statusCode, {
    ...before,
    ...error.headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}
