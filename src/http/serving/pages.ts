// HTTP pieces of the server-rendered public pages: sending a page with its safety headers, the form bodies their
// password forms post (in their own plugin scope only: the JSON API never accepts form posts), and errors answered
// to a browser as a page in words rather than as JSON.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { ErrorCode } from '../../lib/error-codes.js';
import type { ApiError } from '../../lib/errors.js';
import { sendApiError, toApiError } from '../errors.js';
import { renderErrorPage, type ErrorPageText } from '../../pages/error-page.js';
import type { RenderedPage } from '../../pages/layout.js';

/** Largest form body a page accepts (a password field). */
const FORM_BODY_LIMIT = 16 * 1024;

export function sendPage(
  reply: FastifyReply,
  page: RenderedPage,
  status = 200,
  cache = 'private, no-store',
): FastifyReply {
  return reply
    .code(status)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': page.csp,
      'x-content-type-options': 'nosniff',
      'cache-control': cache,
      // Access tokens travel in the query string: never in a Referer to another site.
      'referrer-policy': 'same-origin',
    })
    .send(page.html);
}

/**
 * Sends a password form: the page of a locked file, share link or short URL, or the form again after a wrong or
 * empty password. 200, as Zipline's pages: a 401 must carry a WWW-Authenticate challenge (RFC 9110), which a form is
 * not, and the form is what the address answers until the password is given. Never stored: it is not the content, so
 * no cache may hand it out for the unlocked page, nor the page for it.
 */
export function sendPasswordForm(reply: FastifyReply, page: RenderedPage): FastifyReply {
  return sendPage(reply, page, 200, 'private, no-store');
}

/**
 * Lets routes of this plugin scope read application/x-www-form-urlencoded bodies (a plain HTML form's post) as an
 * object of strings. Call it on an encapsulated scope (`app.register(async (scope) => ...)`).
 */
export function acceptFormBodies(scope: FastifyInstance): void {
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );
}

/** Whether the caller is a browser asking for a page (not an API client, player or crawler fetching bytes). */
export function wantsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

const GENERIC: ErrorPageText = {
  title: 'Something went wrong',
  message: 'The page could not be shown. Try again in a moment.',
};
const TOO_MANY: ErrorPageText = { title: 'Too many requests', message: 'Wait a minute, then try again.' };

/** What a person reads for the errors a public page may run into. */
const PAGE_ERRORS: Partial<Record<ErrorCode, ErrorPageText>> = {
  4000: {
    title: 'File not found',
    message: 'There is no file at this address. The link may be mistyped, or the file has expired or been deleted.',
  },
  4001: {
    title: 'Folder not found',
    message: 'There is no folder at this address. The link may be mistyped, or the folder has been deleted.',
  },
  3002: {
    title: 'This folder is not shared',
    message: 'Its owner has not made it public, or no longer accepts uploads into it.',
  },
  9002: { title: 'Link not found', message: 'This link does not exist, has been turned off, or has been used up.' },
  1000: { title: 'Bad request', message: 'This address is not valid. Check the link and try again.' },
};

/** The words for an error, shown on a page. */
export function pageErrorText(error: ApiError): ErrorPageText {
  if (error.statusCode === 429) return TOO_MANY;
  return PAGE_ERRORS[error.code] ?? (error.statusCode < 500 ? { ...GENERIC, message: sentence(error) } : GENERIC);
}

/** The message of an error code as a sentence ("storage quota exceeded" -> "Storage quota exceeded."). */
function sentence(error: ApiError): string {
  const text = error.message.replace(/^E\d+: /, '');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/**
 * A route errorHandler: browsers get the error as a page in words (with the error's status), everyone else the
 * usual JSON error body. `onPageError` may answer some errors itself (a password form with its message).
 */
export function pageErrorHandler(
  ctx: AppContext,
  onPageError?: (error: ApiError, request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined,
) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const error = toApiError(err, request);
    if (!wantsHtml(request)) return sendApiError(reply, error);
    if (error.statusCode >= 500) reply.log.error({ err: error.cause ?? error, code: error.code }, error.message);
    if (error.headers) reply.headers(error.headers);
    const answered = onPageError?.(error, request, reply);
    if (answered) return answered;
    return sendPage(
      reply,
      renderErrorPage({ siteTitle: ctx.settings.get().siteTitle, ...pageErrorText(error) }),
      error.statusCode,
    );
  };
}

/** Why a password form is shown again. */
export type PasswordFormFailure = 'wrong' | 'limited';

/**
 * The errorHandler of a password form's POST: a wrong password (3005, or a malformed body) shows the form again
 * saying so (200, see sendPasswordForm), too many guesses say that (429); anything else as pageErrorHandler answers
 * it (clients that do not ask for HTML get the JSON error, 403 / 3005 for a wrong password).
 */
export function passwordFormErrorHandler(
  ctx: AppContext,
  renderForm: (request: FastifyRequest, failure: PasswordFormFailure) => RenderedPage,
) {
  return pageErrorHandler(ctx, (error, request, reply) => {
    if (error.code === 3005 || error.code === 1000) return sendPasswordForm(reply, renderForm(request, 'wrong'));
    if (error.statusCode === 429) return sendPage(reply, renderForm(request, 'limited'), 429);
    return undefined;
  });
}

/** The schema of a password form's POST (a plain HTML form posted back to its page's address). */
export function passwordFormSchema<P extends z.ZodType>(summary: string, tag: string, params: P) {
  return {
    summary,
    description:
      'application/x-www-form-urlencoded, for browsers. A wrong password answers the form again (200) saying so ' +
      '(403 / 3005 to clients that do not ask for HTML).',
    tags: [tag],
    params,
    consumes: ['application/x-www-form-urlencoded'],
    body: z.object({ password: z.string().max(1024).optional() }),
  };
}
