// The fast path: the two requests a shared link gets most, taken before Fastify's routing, hooks and reply objects
// when they are as plain as they come: GET /go/<code> of a short URL without a password, and GET /raw/<name> of a
// small public file whose bytes are in memory, with no query, range or condition. It is a dispatcher, not a second
// implementation: the answer is planned by the same service functions the routes call (followShortUrl,
// servedBytesPlan) and written by the same renderers (http/serving/send-redirect.ts, send-bytes.ts); what it saves is
// Fastify's routing, hooks and reply (on SQLite the look-up runs at once, without a promise). The route's request
// metrics count the request. Anything else, or an outcome that needs the route (a password page, a missing link),
// goes to Fastify untouched, before anything was counted; so does every request once the server is stopping. POST
// requests are offered to the uploads' fast path (http/uploads/fast-path.ts) first.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { AppContext } from '../../context.js';
import type { Eventually } from '../../lib/eventually.js';
import { followShortUrl, type FollowOutcome } from '../../services/links/short-urls.js';
import { openPlannedBytes, type OpenedBytes } from '../../services/serving/bytes-plan.js';
import { plainPublicFile, servedBytesPlan } from '../../services/serving/files.js';
import { rewritePublicPrefixes, URLS_ROUTE_INTERNAL } from '../links.js';
import { hasBody } from '../slow-requests.js';
import type { App } from '../types.js';
import { plainUploads } from '../uploads/fast-path.js';
import { bytesRequestOf, writeOpenedBytes } from './send-bytes.js';
import { writeRedirect } from './send-redirect.js';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

const GO_PREFIX = `${URLS_ROUTE_INTERNAL}/`;
const RAW_PREFIX = '/raw/';

/**
 * A code or file name that needs no decoding and that the routes take as it is (their parameters are 1-200 and
 * 1-1024 characters): unreserved URL characters only, not starting with a dot (/raw/.thumbnail.* are thumbnails).
 */
const PLAIN_NAME = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,199}$/;

/** Puts the fast path in front of Fastify's request handler on the app's server. Call once, after buildApp. */
export function installFastPath(app: App, ctx: AppContext): void {
  const server = app.server;
  const [listener, ...others] = server.listeners('request') as Listener[];
  if (listener === undefined || others.length > 0) throw new Error("the fast path expects Fastify's request listener");
  const fastify: Listener = listener;
  server.removeListener('request', fastify);
  const recordRedirect = ctx.metrics.routeRecorder(`${URLS_ROUTE_INTERNAL}/:slug`);
  const recordRaw = ctx.metrics.routeRecorder('/raw/:name');

  /** The redirect, or false (nothing sent, nothing counted) for the route to answer the outcome. */
  const redirect = (response: ServerResponse, outcome: FollowOutcome, t0: number): boolean => {
    if (outcome.kind !== 'redirect') return false;
    writeRedirect(response, outcome.destination, false);
    ctx.metrics.fastPathAnswers.value++;
    recordRedirect('GET', 302, performance.now() - t0);
    return true;
  };

  /** The file's bytes, or false (nothing sent) for the route to answer. */
  const sendFile = (response: ServerResponse, opened: OpenedBytes | undefined, t0: number): boolean => {
    if (opened === undefined) return false;
    writeOpenedBytes(response, opened, app.log);
    ctx.metrics.fastPathAnswers.value++;
    const length = opened.plan.body ? opened.plan.length : 0;
    // As the route's hook counts it: the time to the end of the answer, and its bytes once they were all written.
    response.once('finish', () => {
      recordRaw('GET', opened.plan.status, performance.now() - t0);
      ctx.metrics.servedBytes.value += length;
    });
    return true;
  };

  /** The plain file under `name` with its bytes open (synchronous when the look-up is), or undefined. */
  const openPlainFile = (request: IncomingMessage, name: string): Eventually<OpenedBytes | undefined> => {
    const open = (file: Awaited<ReturnType<typeof plainPublicFile>>) =>
      file === undefined
        ? undefined
        : openPlannedBytes(servedBytesPlan(ctx, file, bytesRequestOf(request, false), undefined));
    const file = plainPublicFile(ctx, name);
    return file instanceof Promise ? file.then(open) : open(file);
  };

  /** Answers with `answer` once the look-up is done (now, or after its promise), or hands the request to Fastify. */
  function settle<T>(
    request: IncomingMessage,
    response: ServerResponse,
    lookup: () => T | Promise<T>,
    answer: (response: ServerResponse, found: T, t0: number) => boolean,
  ): void {
    const t0 = performance.now();
    let found: T | Promise<T>;
    try {
      found = lookup();
    } catch {
      return fastify(request, response);
    }
    const finish = (value: T): void => {
      let answered = false;
      try {
        answered = answer(response, value, t0);
      } catch (err) {
        // Node refused a header before anything was written: the route answers (and reports it). Later, the
        // connection goes.
        if (response.headersSent) {
          app.log.error({ err }, 'the fast path failed midway');
          response.destroy();
          return;
        }
      }
      if (!answered) fastify(request, response);
    };
    if (!(found instanceof Promise)) return finish(found);
    // A stopping server waits for these as for the routes' handlers.
    app.inFlightHandlers.track(found.then(finish, () => fastify(request, response)));
  }

  const upload = plainUploads(app, ctx, fastify);

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'POST') {
      if (!upload(request, response)) fastify(request, response);
      return;
    }
    const url = request.method === 'GET' && server.listening ? rewritePublicPrefixes(ctx, request.url ?? '/') : '';
    if (url.startsWith(GO_PREFIX)) {
      const slug = url.slice(GO_PREFIX.length);
      if (PLAIN_NAME.test(slug) && !hasBody(request))
        return settle(request, response, () => followShortUrl(ctx, slug), redirect);
    } else if (url.startsWith(RAW_PREFIX)) {
      const name = url.slice(RAW_PREFIX.length);
      const headers = request.headers;
      if (
        PLAIN_NAME.test(name) &&
        !hasBody(request) &&
        headers.range === undefined &&
        headers['if-none-match'] === undefined &&
        headers['if-modified-since'] === undefined &&
        headers['if-range'] === undefined
      )
        return settle(request, response, () => openPlainFile(request, name), sendFile);
    }
    fastify(request, response);
  });
}
