// Slow clients cannot hold a connection (and a stopping server) forever:
// - idle: a connection that neither sends nor receives a byte for REQUEST_IDLE_TIMEOUT seconds in the middle of a
//   request is ended. An upload of any size goes on as long as bytes keep coming; a download as long as the client
//   keeps reading.
// - body: the body of a request that is not an upload (JSON, forms: small by JSON_BODY_LIMIT) must arrive whole
//   within REQUEST_BODY_TIMEOUT seconds, however it trickles.
// Either way the client gets 408 in the spec's shape when nothing was answered yet, and the connection is closed.
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../lib/errors.js';

export interface RequestTimeouts {
  idleMs: number;
  bodyMs: number;
}

/**
 * Uploads are the multipart bodies (POST /api/upload, chunks, public folders) and tus bodies
 * (application/offset+octet-stream): their length is the user's.
 */
function isUploadBody(request: FastifyRequest): boolean {
  const type = (request.headers['content-type'] ?? '').toLowerCase();
  return type.startsWith('multipart/') || type.startsWith('application/offset+octet-stream');
}

/** Whether a request says it has a body (a length above 0, or chunks). */
export function hasBody(request: { headers: IncomingHttpHeaders }): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}

/** How long a connection lingers after the 408 for the answer to leave before it is destroyed. */
const CLOSE_GRACE_MS = 1_000;

/** A request answered without Fastify (http/uploads/fast-path.ts), for the idle timeout to end like a route's. */
export interface RawExchange {
  request: IncomingMessage;
  response: ServerResponse;
  log: FastifyBaseLogger;
}

/** The request each connection is serving, for the idle timeout to answer. */
const current = new WeakMap<Socket, FastifyReply | RawExchange>();

/** Makes `exchange` the request its connection is serving (the idle timeout answers it with 408). */
export function watchIdle(exchange: RawExchange): void {
  current.set(exchange.request.socket, exchange);
}

/** The 408 of a request that nothing answered yet. */
function write408(response: ServerResponse, socket: Socket, reason: string): void {
  const error = new ApiError(9000, reason, { status: 408 });
  const body = JSON.stringify(error.toBody());
  response.writeHead(408, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    connection: 'close',
  });
  response.end(body);
  setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
}

/** endSlowRequest() for a request answered without Fastify. */
function endSlowExchange(exchange: RawExchange, socket: Socket, reason: string): void {
  socket.once('close', () => exchange.request.destroy());
  if (exchange.response.headersSent) {
    socket.destroy();
    return;
  }
  exchange.log.info({ reason }, 'slow request ended');
  write408(exchange.response, socket, reason);
}

/** Answers 408 (when nothing was answered yet) and closes the connection. */
function endSlowRequest(reply: FastifyReply | RawExchange | undefined, socket: Socket, reason: string): void {
  if (socket.destroyed) return;
  if (reply !== undefined && 'response' in reply) return endSlowExchange(reply, socket, reason);
  // Once its answer is finished Node no longer aborts the request when the connection goes, so a handler still
  // reading the body (an upload streaming to a temp file) would wait forever: end the body stream with the connection.
  if (reply) socket.once('close', () => reply.request.raw.destroy());
  if (!reply || reply.sent || reply.raw.headersSent) {
    socket.destroy();
    return;
  }
  reply.log.info({ reason }, 'slow request ended');
  // From here on the handler (still waiting for the body) must not answer: the 408 is the answer.
  reply.hijack();
  write408(reply.raw, socket, reason);
}

export function registerRequestTimeouts(app: FastifyInstance, timeouts: RequestTimeouts): void {
  // A callback hook, not an async one: it runs on every request, and a promise per request costs the hot path.
  app.addHook('onRequest', (request, reply, done) => {
    const socket = request.raw.socket;
    current.set(socket, reply);
    if (isUploadBody(request) || !hasBody(request) || request.raw.complete) return done();
    const timer = setTimeout(() => {
      if (!request.raw.complete) endSlowRequest(reply, socket, `the body took longer than ${timeouts.bodyMs / 1000} s`);
    }, timeouts.bodyMs);
    timer.unref();
    const clear = () => clearTimeout(timer);
    request.raw.once('end', clear);
    request.raw.once('close', clear);
    done();
  });

  // Node's socket timeout (Fastify's connectionTimeout: idleMs) is the idle timer, reset by every byte read or
  // written; with a listener here Node only reports it, and the connection is ended here.
  app.server.on('timeout', (socket: Socket) => {
    endSlowRequest(current.get(socket), socket, `no byte for ${timeouts.idleMs / 1000} s`);
  });
}
