// After a refused upload the client may still be sending a large body. Reading it all only to throw it away wastes
// the client's time and our bandwidth; closing at once can make the client miss the answer. So: answer at once with
// Connection: close, keep discarding what arrives for a short linger, then close the connection.
import type { FastifyReply, FastifyRequest } from 'fastify';

/** How long a refused upload's connection keeps reading (and discarding) before it is closed. */
export const LINGER_MS = 2_000;

export function cutOffRequestBody(request: FastifyRequest, reply: FastifyReply, lingerMs = LINGER_MS): void {
  if (request.raw.complete) return;
  reply.header('connection', 'close');
  const socket = request.raw.socket;
  request.raw.unpipe();
  request.raw.resume();
  reply.raw.once('finish', () => {
    const timer = setTimeout(() => socket.destroy(), lingerMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}
