// After a refused upload the client may still be sending a large body. Reading it all only to throw it away wastes
// the client's time and our bandwidth; closing at once makes clients that are still sending (Node's fetch, browsers)
// miss the answer (EPIPE, ECONNRESET). So, like nginx's lingering close: answer at once, keep reading and discarding
// what arrives, and close the connection once LINGER_MS have passed since the answer or LINGER_BYTES more have
// arrived, whichever comes first; a body past that bound is cut off. A body that ends within the bound leaves the
// connection open for the client's next request. (The answer must not say Connection: close: Node's server would then
// close the socket as soon as the answer is written, and the client's next write would fail.)
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** How long a refused upload's connection keeps reading (and discarding) after the answer. */
export const LINGER_MS = 5_000;
/** How many more bytes of a refused upload are read (and discarded) after the answer. */
export const LINGER_BYTES = 256 * 1024 * 1024;

export function cutOffRequestBody(
  request: FastifyRequest,
  reply: FastifyReply,
  bound: { ms: number; bytes: number } = { ms: LINGER_MS, bytes: LINGER_BYTES },
): void {
  cutOffBody(request.raw, reply.raw, bound);
}

/** cutOffRequestBody() on Node's own request and response (the fast path's uploads, http/uploads/fast-path.ts). */
export function cutOffBody(
  request: IncomingMessage,
  response: ServerResponse,
  bound: { ms: number; bytes: number } = { ms: LINGER_MS, bytes: LINGER_BYTES },
): void {
  if (request.complete) return;
  const { socket } = request;
  request.unpipe();
  let discarded = 0;
  request.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > bound.bytes) socket.destroy();
  });
  request.resume();
  response.once('finish', () => {
    if (request.complete) return;
    const timer = setTimeout(() => socket.destroy(), bound.ms);
    timer.unref();
    request.once('end', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
  });
}
