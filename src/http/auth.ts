// Who is calling: the API token in the Authorization header (the token itself), or the session cookie.
// Missing -> 2002, a bad token -> 2001, a bad or revoked session -> 2000; a state change authenticated by the cookie
// that another site made (Sec-Fetch-Site / Origin) -> 9001. Route groups (registerRouteGroups) declare who may call
// their routes, checked in a `preParsing` hook: the caller is known before a byte of the body is read (an anonymous
// client cannot make the server read and parse its JSON), and an unauthenticated or unauthorised caller learns
// nothing about the request schema (2xxx/3000, not 1000).
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { IncomingHttpHeaders } from 'node:http';
import type { AppContext } from '../context.js';
import type { SessionRow, UserRow } from '../db/schema/tables.js';
import { findUserByToken } from '../services/accounts/account.js';
import { findApiToken } from '../services/accounts/api-tokens.js';
import { findUploadFolder } from '../services/organise/folders.js';
import { findSession, SESSION_TTL_MS } from '../services/accounts/sessions.js';
import { ApiError } from '../lib/errors.js';
import { scopesAllow, type TokenScope } from '../lib/security/token-scopes.js';
import { AUTHENTICATED } from './openapi.js';
import type { App, RouteModule } from './types.js';
import { headerText, UPLOAD_HEADERS } from './uploads/headers.js';

export const SESSION_COOKIE = 'chute_session';

export interface Authenticated {
  user: UserRow;
  /** The session, when the caller came with the cookie. */
  session: SessionRow | null;
  via: 'token' | 'session';
  /** When the caller came with a scoped API token (services/accounts/api-tokens.ts): which one, and what it may do. */
  apiToken?: { id: string; scopes: TokenScope[] };
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: Authenticated | null;
  }
}

/** The API token of a request's Authorization header, if it has one. */
export function tokenFromHeader(request: { headers: IncomingHttpHeaders }): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  // The spec sends the token itself; a "Bearer " prefix from generic HTTP clients is tolerated.
  return header.replace(/^Bearer\s+/i, '').trim();
}

/** Resolves the caller or throws the spec's 2xxx error. */
export async function authenticate(ctx: AppContext, request: FastifyRequest): Promise<Authenticated> {
  const token = tokenFromHeader(request);
  if (token !== undefined)
    return authenticateToken(ctx, token, request.method, request.routeOptions.url ?? request.url);
  const cookie = request.cookies[SESSION_COOKIE];
  if (cookie) {
    const found = await findSession(ctx, cookie);
    if (!found) throw new ApiError(2000);
    // The cookie goes along with requests that other sites make: a change it authenticates must come from here.
    if (!SAFE_METHODS.has(request.method) && isCrossSite(ctx, request)) {
      throw new ApiError(9001, 'cross-site request refused: sign-in cookies only act for pages of this site');
    }
    return { user: found.user, session: found.session, via: 'session' };
  }
  throw new ApiError(2002);
}

/**
 * The caller of an API token (the Authorization header's value without "Bearer "), for a request of `method` to the
 * route `route`, or the spec's error (2001; 9001 when a scoped token's scopes do not allow the route).
 */
export async function authenticateToken(
  ctx: AppContext,
  token: string,
  method: string,
  route: string,
): Promise<Authenticated> {
  const scoped = token ? await findApiToken(ctx, token) : undefined;
  if (scoped) {
    // A scoped token reaches only its scopes' routes (lib/security/token-scopes.ts); any other -> 9001 (403).
    if (!scopesAllow(scoped.scopes, method, route)) {
      throw new ApiError(9001, `this API token's scopes (${scoped.scopes.join(', ')}) do not allow ${method} ${route}`);
    }
    return {
      user: scoped.user,
      session: null,
      via: 'token',
      apiToken: { id: scoped.token.id, scopes: scoped.scopes },
    };
  }
  const user = token ? await findUserByToken(ctx, token) : undefined;
  if (!user) throw new ApiError(2001);
  return { user, session: null, via: 'token' };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether the browser says this request was made by another site (the scheme of Go's CrossOriginProtection):
 * Sec-Fetch-Site, which every current browser sends, decides when present (only `same-origin` and `none`, a typed
 * address or bookmark, pass); without it an Origin header must name this host or PUBLIC_URL's. A request with
 * neither (curl, scripts, old browsers' same-origin GETs) is not a browser acting for another site.
 */
export function isCrossSite(ctx: AppContext, request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return true; // "null" (sandboxed frames, file: pages) and anything unreadable
  }
  const ownHosts = [request.host, ctx.config.PUBLIC_URL ? new URL(ctx.config.PUBLIC_URL).host : undefined];
  return !ownHosts.includes(host);
}

/** preParsing hook: the route needs a logged-in caller. */
export function requireUser(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    request.auth = await authenticate(ctx, request);
  };
}

/** The folder an anonymous upload names (x-service-folder, or Zipline's x-zipline-folder), when it comes without credentials. */
function anonymousUploadFolder(request: FastifyRequest): string | undefined {
  if (request.headers.authorization !== undefined || request.cookies[SESSION_COOKIE]) return undefined;
  return headerText(request.headers, UPLOAD_HEADERS.folder) || undefined;
}

/**
 * preParsing hook of POST /api/upload and /api/upload/partial: a logged-in caller, or (Zipline's anonymous folder
 * uploads) a request without any credentials that names a folder in x-service-folder; request.auth then stays null
 * and uploaderOf() decides whether that folder takes uploads. Any other anonymous request -> 2002, as before.
 */
export function requireUserOrUploadFolder(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    request.auth = anonymousUploadFolder(request) === undefined ? await authenticate(ctx, request) : null;
  };
}

/** Who an upload is stored for: the caller, or for an anonymous upload the owner of the folder it names. */
export interface Uploader {
  user: { id: string };
  /** The folder of an anonymous upload (public, and its owner allows uploads); null for a logged-in caller. */
  anonymousFolder: string | null;
}

/**
 * The uploader of a route guarded by requireUserOrUploadFolder. Anonymous: the folder must exist (4001), be public and
 * take uploads (3002); the files are its owner's, counted against the owner's quota, as Zipline's anonymous uploads.
 */
export async function uploaderOf(ctx: AppContext, request: FastifyRequest): Promise<Uploader> {
  if (request.auth) return { user: request.auth.user, anonymousFolder: null };
  const folderId = anonymousUploadFolder(request);
  if (folderId === undefined) throw new ApiError(2002);
  const folder = await findUploadFolder(ctx, folderId);
  return { user: { id: folder.user_id }, anonymousFolder: folder.id };
}

/** preParsing hook: the route needs an ADMIN or SUPERADMIN (3000 otherwise). */
export function requireAdmin(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const auth = await authenticate(ctx, request);
    if (auth.user.role === 'USER') throw new ApiError(3000);
    request.auth = auth;
  };
}

/** preParsing hook: a SUPERADMIN only (a USER -> 3000, an ADMIN -> 3015). */
export function requireSuperadmin(ctx: AppContext) {
  const admin = requireAdmin(ctx);
  return async (request: FastifyRequest): Promise<void> => {
    await admin(request);
    if (caller(request).user.role !== 'SUPERADMIN') throw new ApiError(3015);
  };
}

/** preParsing hook: the caller is resolved when credentials are given and valid; anonymous otherwise. */
export function optionalUser(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    try {
      request.auth = await authenticate(ctx, request);
    } catch (err) {
      if (err instanceof ApiError && err.code >= 2000 && err.code < 3000) request.auth = null;
      else throw err;
    }
  };
}

/**
 * Who may call the routes of a group: anyone (no check), anyone with the caller resolved when their credentials are
 * valid (optionalUser), a signed-in user, one or an anonymous upload into a public folder (requireUserOrUploadFolder),
 * an ADMIN or SUPERADMIN, a SUPERADMIN.
 */
export type Access = 'anyone' | 'optional-user' | 'user' | 'user-or-upload-folder' | 'admin' | 'superadmin';

const GUARDS: Record<Exclude<Access, 'anyone'>, (ctx: AppContext) => (request: FastifyRequest) => Promise<void>> = {
  'optional-user': optionalUser,
  user: requireUser,
  'user-or-upload-folder': requireUserOrUploadFolder,
  admin: requireAdmin,
  superadmin: requireSuperadmin,
};

/** The groups whose routes the OpenAPI document marks as needing the API token or the session cookie. */
const NEEDS_CREDENTIALS = new Set<Access>(['user', 'user-or-upload-folder', 'admin', 'superadmin']);

/** Routes under one URL prefix that share who may call them. */
export interface RouteGroup {
  prefix: string;
  access: Access;
  routes: RouteModule[];
}

/**
 * Registers each group as an encapsulated plugin under its prefix. Its access is one preParsing hook for all its
 * routes: after the onRequest hooks (rate limits, login attempts), before the body is read, parsed and validated.
 * The routes of a group that needs credentials are marked so in the OpenAPI document.
 */
export async function registerRouteGroups(app: App, ctx: AppContext, groups: RouteGroup[]): Promise<void> {
  for (const { prefix, access, routes } of groups) {
    await app.register(
      async (scope) => {
        const group = scope.withTypeProvider<ZodTypeProvider>();
        if (access !== 'anyone') group.addHook('preParsing', GUARDS[access](ctx));
        if (NEEDS_CREDENTIALS.has(access)) group.addHook('onRoute', markAuthenticated);
        for (const register of routes) await register(group, ctx);
      },
      { prefix },
    );
  }
}

/** An onRoute hook; the schema is copied, as one schema object may serve routes of several groups. */
function markAuthenticated(route: RouteOptions): void {
  route.schema = { ...route.schema, security: AUTHENTICATED };
}

/** The caller of a route whose group needs a signed-in one (user, admin, superadmin). */
export function caller(request: FastifyRequest): Authenticated {
  if (!request.auth) throw new ApiError(2002);
  return request.auth;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, secret: string): void {
  reply.setCookie(SESSION_COOKIE, secret, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}

/** Where a new session comes from: the User-Agent and the client's own name (x-service-client). */
export function sessionOrigin(request: FastifyRequest): { userAgent: string | undefined; client: string | undefined } {
  const client = request.headers['x-service-client'];
  return { userAgent: request.headers['user-agent'], client: Array.isArray(client) ? client[0] : client };
}
