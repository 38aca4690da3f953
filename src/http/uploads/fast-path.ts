// POST /api/upload taken before Fastify when it comes as ShareX, Flameshot, curl and scripts send it: an API token in
// Authorization, a multipart body, no query, links whose host needs no proxy header read, and a caller that no upload
// limit applies to. Fastify's routing, hooks and reply cost a 4 KiB upload about a sixth of its main-thread CPU
// (bench/RESULTS.md). It is a dispatcher, not a second implementation: everything that can refuse the request before
// its body is read runs first, with the route's own functions (the token, the options' headers, the links' host), and
// when any of them refuses (or throws) the request goes to Fastify untouched, so those errors are the route's. From
// the first byte of the body on, it calls what the route calls (receiveUpload, http/uploads/send-upload.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { performance } from 'node:perf_hooks';
import type { AppContext } from '../../context.js';
import { authenticateToken, tokenFromHeader, type Authenticated } from '../auth.js';
import { API_HEADERS } from '../api-headers.js';
import { baseUrlOf } from '../links.js';
import { callerExempt } from '../rate-limit.js';
import { watchIdle } from '../slow-requests.js';
import type { App } from '../types.js';
import { parseUploadOptions } from './headers.js';
import { hasBoundary } from './multipart.js';
import { receiveUpload } from './send-upload.js';

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
    await receiveUpload(ctx, request, response, { user: auth.user, options, baseUrl }, API_HEADERS, app.log);
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
