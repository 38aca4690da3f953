// The Fastify handlers that turn every failure (ours, Fastify's, a plugin's)
// into the specification's error body: {error: "E<code>: <message>[: context]", code, statusCode}.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { ApiError, type ErrorCode } from '../lib/errors.js';
import { API_HEADERS } from './api-headers.js';

interface ValidationIssue {
  path: string;
  message: string;
}

/** Translates whatever was thrown into an ApiError; unknown errors become 9004 and are logged in full. */
export function toApiError(err: unknown, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;

  if (hasZodFastifySchemaValidationErrors(err)) {
    const context = (err as FastifyError).validationContext ?? 'body';
    const issues: ValidationIssue[] = err.validation.map((v) => {
      const where = [
        context,
        ...String(v.instancePath ?? '')
          .split('/')
          .filter(Boolean),
      ].join('.');
      return { path: where, message: v.message ?? 'invalid value' };
    });
    const summary = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
    return new ApiError(1000, summary, { extra: { issues } });
  }

  if (isResponseSerializationError(err)) {
    request.log.error({ err, issues: err.cause.issues }, 'response did not match its schema');
    return new ApiError(9004);
  }

  const fastifyError = err as Partial<FastifyError>;
  const status = fastifyError.statusCode;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(9000, 'the body is not valid JSON');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(9000, `unsupported content type ${JSON.stringify(request.headers['content-type'] ?? '')}`, {
        status: 415,
      });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(9000, 'the request body is too large', { status: 413 });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(9000, 'Content-Length does not match the body');
    case 'FST_REQ_FILE_TOO_LARGE':
      return new ApiError(5001);
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
    case 'FST_MULTIPART_INVALID_CONTENT_TYPE':
      return new ApiError(1061);
    default:
      break;
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // A 4xx from Fastify or a plugin that has no table entry of its own: keep its status, generic code.
    const code: ErrorCode = status === 403 ? 9001 : status === 404 ? 9002 : 9000;
    return new ApiError(code, fastifyError.message, { status });
  }
  request.log.error({ err }, 'unexpected error');
  return new ApiError(9004, undefined, { cause: err });
}

export function sendApiError(reply: FastifyReply, error: ApiError): FastifyReply {
  if (error.statusCode >= 500) {
    // 6xxx and 9004 are logged in full, with the cause that produced them.
    reply.log.error({ err: error.cause ?? error, code: error.code }, error.message);
  }
  if (error.headers) reply.headers(error.headers);
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(error.toBody());
}

export function registerErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => sendApiError(reply, toApiError(err, request)));
  app.setNotFoundHandler((request, reply) =>
    sendApiError(reply, new ApiError(9002, `no route for ${request.method} ${request.url.split('?')[0]}`)),
  );
}

/**
 * Fastify's `frameworkErrors`: failures found while routing, before any hook runs (a bad percent-escape in the path,
 * a path parameter over maxParamLength), answered in the spec's shape instead of Fastify's.
 */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  let error: ApiError;
  switch (err.code) {
    case 'FST_ERR_BAD_URL':
      error = new ApiError(9000, 'the path is not valid (a malformed percent-escape)');
      break;
    case 'FST_ERR_MAX_PARAM_LENGTH':
      error = new ApiError(9000, 'a part of the path is too long', { status: 414 });
      break;
    default:
      error = toApiError(err, request);
  }
  void sendApiError(reply.headers(API_HEADERS), error);
}

/** The answer to a request that Node's HTTP parser refused (Fastify's `clientErrorHandler`). */
function clientErrorAnswer(err: NodeJS.ErrnoException): ApiError {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError(9000, 'the request took too long to arrive', { status: 408 });
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(9000, 'the request headers are too large', { status: 431 });
    case 'HPE_URI_TOO_LONG':
      return new ApiError(9000, 'the request line is too long', { status: 414 });
    default:
      return new ApiError(9000, 'the request is not valid HTTP');
  }
}

/**
 * Fastify's `clientErrorHandler`: errors of the HTTP parser, raised before there is a request at all (oversized
 * headers, a malformed request line, Node's request timeout), written to the socket in the spec's shape.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has no one to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const error = clientErrorAnswer(err);
    const body = JSON.stringify(error.toBody());
    socket.write(
      `HTTP/1.1 ${error.statusCode} ${STATUS_CODES[error.statusCode] ?? 'Error'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
