// What each scope of a scoped API token allows: the one table of routes per scope (documented in docs/api.md).
// A route is `METHOD /path` as the route is declared (`:id` for a path parameter); a path ending in `/*` stands for
// every route below it (with any method when the method is `*`). A HEAD request counts as the GET of its route.
// Any route in no scope's list (the account: /api/user, its token and tokens, sessions, sign-in providers) is out of
// reach of every scoped token: only the main API token and a session cookie reach it.

export const TOKEN_SCOPES = ['upload', 'files:read', 'files:write', 'urls', 'admin'] as const;

export type TokenScope = (typeof TOKEN_SCOPES)[number];

export const SCOPE_ROUTES: Record<TokenScope, readonly string[]> = {
  /** Uploading: one request, in chunks (and any other upload protocol under /api/upload), and the chunked uploads' state. */
  upload: ['POST /api/upload', '* /api/upload/*', 'GET /api/user/files/incomplete'],
  /** Reading the caller's files, folders and tags. */
  'files:read': [
    'GET /api/user/files',
    'GET /api/user/recent',
    'GET /api/user/stats',
    'GET /api/user/files/:id',
    'GET /api/user/files/:id/raw',
    'POST /api/user/files/:id/password',
    'GET /api/user/files/:id/tags',
    'GET /api/user/files/:id/shares',
    'GET /api/user/folders',
    'GET /api/user/folders/:id',
    'GET /api/user/folders/:id/zip',
    'GET /api/user/tags',
    'GET /api/user/tags/:id',
  ],
  /** Changing and deleting the caller's files, folders and tags. */
  'files:write': [
    'PATCH /api/user/files/:id',
    'DELETE /api/user/files/:id',
    'PATCH /api/user/files/transaction',
    'DELETE /api/user/files/transaction',
    'DELETE /api/user/files/incomplete',
    'PUT /api/user/files/:id/tags',
    'POST /api/user/files/:id/tags/:tagId',
    'DELETE /api/user/files/:id/tags/:tagId',
    'POST /api/user/files/:id/shares',
    'DELETE /api/user/files/:id/shares/:shareId',
    'POST /api/user/folders',
    'PATCH /api/user/folders/:id',
    'DELETE /api/user/folders/:id',
    'POST /api/user/folders/:id/files',
    'DELETE /api/user/folders/:id/files/:fileId',
    'POST /api/user/tags',
    'PATCH /api/user/tags/:id',
    'DELETE /api/user/tags/:id',
  ],
  /** Shortening, listing, editing and deleting the caller's short URLs. */
  urls: ['* /api/user/urls', '* /api/user/urls/*'],
  /** The administration routes; the token's user must still be an ADMIN or SUPERADMIN (3000 otherwise). */
  admin: ['* /api/users', '* /api/users/*', '* /api/auth/invites', '* /api/auth/invites/*', '* /api/server/*'],
};

function matches(entry: string, method: string, url: string): boolean {
  const space = entry.indexOf(' ');
  const entryMethod = entry.slice(0, space);
  const entryPath = entry.slice(space + 1);
  if (entryMethod !== '*' && entryMethod !== method) return false;
  if (entryPath.endsWith('/*')) return url.startsWith(entryPath.slice(0, -1));
  return url === entryPath;
}

/** Whether a token with `scopes` may call the route declared as `url` (Fastify's form, `:id`) with `method`. */
export function scopesAllow(scopes: readonly TokenScope[], method: string, url: string): boolean {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  return scopes.some((scope) => SCOPE_ROUTES[scope].some((entry) => matches(entry, m, url)));
}

/** The scopes stored for a token (space-separated), known ones only. */
export function parseScopes(text: string): TokenScope[] {
  return text.split(' ').filter((s): s is TokenScope => (TOKEN_SCOPES as readonly string[]).includes(s));
}
