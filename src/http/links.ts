// Public links handed out to users: the base URL (PUBLIC_URL, else the request's own host, or the host an upload
// asked for with x-service-domain) joined with the configured route prefix.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../lib/errors.js';

/** Internal route prefixes; the configured `filesRoute` / `urlsRoute` settings are rewritten onto these. */
export const FILES_ROUTE_INTERNAL = '/u';
export const URLS_ROUTE_INTERNAL = '/go';

const HOST_RE = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?::\d{1,5})?$/i;

/**
 * The base URL for links in a response. `domain` (from x-service-domain) is a host name, optionally with a port and
 * scheme; an invalid one -> 1001 naming the header.
 */
export function publicBaseUrl(ctx: AppContext, request: FastifyRequest, domain?: string): string {
  return baseUrlOf(ctx, request, domain);
}

/** publicBaseUrl() from a request's protocol and host (as Fastify gives them: through trusted proxies). */
export function baseUrlOf(
  ctx: Pick<AppContext, 'config'>,
  request: { protocol: string; host: string },
  domain?: string,
): string {
  if (domain !== undefined && domain !== '') {
    const match = /^(https?:\/\/)?([^/]+)\/?$/i.exec(domain.trim());
    if (!match || !HOST_RE.test(match[2]!)) throw new ApiError(1001, 'x-service-domain must be a host name');
    const scheme = match[1]
      ? match[1].toLowerCase()
      : ctx.config.PUBLIC_URL
        ? `${new URL(ctx.config.PUBLIC_URL).protocol}//`
        : `${request.protocol}://`;
    return `${scheme}${match[2]!.toLowerCase()}`;
  }
  if (ctx.config.PUBLIC_URL) return ctx.config.PUBLIC_URL.replace(/\/+$/, '');
  return `${request.protocol}://${request.host}`;
}

/**
 * Maps the configured public prefixes onto the internal routes, so that an admin can change them at run time
 * (Fastify's routes are fixed once the app is ready). Used as Fastify's rewriteUrl.
 */
export function rewritePublicPrefixes(ctx: Pick<AppContext, 'settings'>, url: string): string {
  const { filesRoute, urlsRoute } = ctx.settings.get();
  if (filesRoute !== FILES_ROUTE_INTERNAL && url.startsWith(`${filesRoute}/`)) {
    return FILES_ROUTE_INTERNAL + url.slice(filesRoute.length);
  }
  if (urlsRoute !== URLS_ROUTE_INTERNAL && url.startsWith(`${urlsRoute}/`)) {
    return URLS_ROUTE_INTERNAL + url.slice(urlsRoute.length);
  }
  return url;
}
