// The fast path: the two requests a shared link gets most, answered before Fastify's routing, hooks and reply objects
// when they are as plain as they come: GET /go/<code> of a short URL without a password or view limit, and
// GET /raw/<name> of a small public file whose bytes are in memory, with no query, range or condition. Each costs one
// indexed look-up (on SQLite run at once, without a promise) and one write. The answer is the route's own (the same
// headers, built by the same functions; test/http/fast-path.test.ts compares them), the view is counted as the route
// counts it (in memory, batched), and the route's request metrics count the request. Anything else, or a failure
// before the answer began, goes to Fastify untouched, as if the fast path were not there; so does every request once
// the server is stopping. POST requests are offered to the uploads' fast path (http/uploads/fast-path.ts) first.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { AppContext } from '../../context.js';
import { servingPolicy } from '../../lib/formats/media-types.js';
import { plainPublicFile, servedCacheControl, type PlainPublicFile } from '../../services/serving/files.js';
import { plainRedirect, type PlainRedirect } from '../../services/links/short-urls.js';
import { rewritePublicPrefixes, URLS_ROUTE_INTERNAL } from '../links.js';
import { hasBody } from '../slow-requests.js';
import { storedFileHeaders } from './stored-bytes.js';
import type { App } from '../types.js';
import { plainUploads } from '../uploads/fast-path.js';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

const GO_PREFIX = `${URLS_ROUTE_INTERNAL}/`;
const RAW_PREFIX = '/raw/';

/**
 * A code or file name that needs no decoding and that the routes take as it is (their parameters are 1-200 and
 * 1-1024 characters): unreserved URL characters only, not starting with a dot (/raw/.thumbnail.* are thumbnails).
 */
const PLAIN_NAME = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,199}$/;

/** What Node accepts in a header value (anything else goes to the route, which answers the error). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Puts the fast path in front of Fastify's request handler on the app's server. Call once, after buildApp. */
export function installFastPath(app: App, ctx: AppContext): void {
  const server = app.server;
  const [listener, ...others] = server.listeners('request') as Listener[];
  if (listener === undefined || others.length > 0) throw new Error("the fast path expects Fastify's request listener");
  const fastify: Listener = listener;
  server.removeListener('request', fastify);
  const recordRedirect = ctx.metrics.routeRecorder(`${URLS_ROUTE_INTERNAL}/:slug`);
  const recordRaw = ctx.metrics.routeRecorder('/raw/:name');

  /** The redirect, or false (nothing sent) for the route to answer. */
  const redirect = (response: ServerResponse, found: PlainRedirect | undefined, t0: number): boolean => {
    if (found === undefined || !HEADER_VALUE.test(found.destination)) return false;
    response.writeHead(302, { 'cache-control': 'no-store', location: found.destination, 'content-length': '0' });
    found.countView();
    ctx.metrics.fastPathAnswers.value++;
    response.end();
    recordRedirect('GET', 302, performance.now() - t0);
    return true;
  };

  /**
   * The answer's headers for a file record, or null when Node would refuse them: computed once per record object (the
   * look-up hands out the same object while the record is unchanged, db/sqlite/row-watch.ts).
   */
  const fileHeaders = new WeakMap<PlainPublicFile['file'], Record<string, string> | null>();
  const headersOf = (file: PlainPublicFile['file']): Record<string, string> | null => {
    let headers = fileHeaders.get(file);
    if (headers === undefined) {
      const built = storedFileHeaders(file, servedCacheControl(file), false);
      built['content-type'] = servingPolicy(file.type).contentType;
      built['content-length'] = String(file.size);
      headers = HEADER_VALUE.test(built['content-disposition']!) ? built : null;
      fileHeaders.set(file, headers);
    }
    return headers;
  };

  /** The file's bytes, or false (nothing sent) for the route to answer. */
  const sendFile = (response: ServerResponse, found: PlainPublicFile | undefined, t0: number): boolean => {
    if (found === undefined) return false;
    const { file, bytes } = found;
    // plainPublicFile() answers only when the bytes in memory are the record's size.
    const headers = headersOf(file);
    if (headers === null) return false;
    response.writeHead(200, headers);
    found.countView();
    ctx.metrics.fastPathAnswers.value++;
    response.end(bytes);
    // As the route's hook counts it: the time to the end of the answer, and its bytes once they were all written.
    response.once('finish', () => {
      recordRaw('GET', 200, performance.now() - t0);
      ctx.metrics.servedBytes.value += bytes.length;
    });
    return true;
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
        return settle(request, response, () => plainRedirect(ctx, slug), redirect);
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
        return settle(request, response, () => plainPublicFile(ctx, name), sendFile);
    }
    fastify(request, response);
  });
}
