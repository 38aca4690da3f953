// The one renderer of a short URL's redirect, for the route (GET/HEAD /go/<slug>, http/serving is used by
// routes/links/redirect.ts) and the fast path in front of it (http/serving/fast-path.ts) alike.
import type { FastifyReply } from 'fastify';
import type { ServerResponse } from 'node:http';

/**
 * Writes the redirect to `location` (null: a HEAD of a view-limited link, which must not tell where it leads). Throws
 * before anything is written when Node refuses the location as a header value.
 */
export function writeRedirect(res: ServerResponse, location: string | null, head: boolean): void {
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  if (location !== null) headers.location = location;
  // An empty body says so; a HEAD answer describes no body of its own.
  if (!head) headers['content-length'] = '0';
  res.writeHead(302, headers);
  res.end();
}

/** A route's redirect, written by writeRedirect (a refused location answers through the route's error handler). */
export function sendRedirect(reply: FastifyReply, location: string | null): FastifyReply {
  writeRedirect(reply.raw, location, reply.request.method === 'HEAD');
  reply.hijack();
  return reply;
}
