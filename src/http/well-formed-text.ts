// Text that cannot be stored: a lone UTF-16 surrogate (JSON's "\ud800" escape, which UTF-8 cannot encode) or a NUL
// character (which PostgreSQL's text refuses) in a JSON body, the query string or the path is refused with 1000 before
// any route sees it, so no name, note or setting is saved half-readable (SQLite) or fails in the database
// (PostgreSQL) with a 500, and no look-up by such a name fails either.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../lib/errors.js';

/** NUL, or a lone surrogate: in a /u regex a well-formed pair is one code point, so \p{Cs} matches only lone halves. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const NOT_TEXT = /[\p{Cs}\u0000]/u;

/** The path (`body.name`, `query.search`) of the first string, or key, that is not text in `value`, if any. */
export function findIllFormedText(value: unknown, where: string, depth = 0): string | undefined {
  if (typeof value === 'string') return NOT_TEXT.test(value) ? where : undefined;
  // JSON nesting deeper than this is not what any route takes; its schema refuses it.
  if (value === null || typeof value !== 'object' || depth > 64) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const path = `${where}.${key}`;
    if (NOT_TEXT.test(key)) return path;
    const found = findIllFormedText(item, path, depth + 1);
    if (found) return found;
  }
  return undefined;
}

export function registerWellFormedText(app: FastifyInstance): void {
  // A global preValidation hook: after the route's authentication (preParsing), before its schema.
  // A callback hook, not an async one: it runs on every request, and a promise per request costs the hot path.
  app.addHook('preValidation', (request, _reply, done) => {
    const found =
      findIllFormedText(request.params, 'params') ??
      findIllFormedText(request.query, 'query') ??
      findIllFormedText(request.body, 'body');
    if (!found) return done();
    const message = 'a NUL character or a lone UTF-16 surrogate is not text';
    done(new ApiError(1000, `${found}: ${message}`, { extra: { issues: [{ path: found, message }] } }));
  });
}
