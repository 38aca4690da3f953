// Short URLs of the caller: shorten, list and search, read, edit, delete; and the visitor's password unlock.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { UrlRow } from '../../db/schema/tables.js';
import { caller } from '../../http/auth.js';
import { ApiError } from '../../lib/errors.js';
import { publicBaseUrl } from '../../http/links.js';
import { headerText } from '../../http/uploads/headers.js';
import { urlLink } from '../../lib/text/links.js';
import type { RouteModule } from '../../http/types.js';
import { passwordGuessGuard, shortenRateLimit } from '../../http/rate-limit.js';
import { Id } from '../../schemas/common.js';
import { pagedList, pagedListSchema } from '../../schemas/paged-list.js';
import { DestinationSchema, UrlSchema, VanitySchema } from '../../schemas/url.js';
import { createUrl, deleteUrl, getOwnUrl, listUrls, unlockUrl, updateUrl } from '../../services/links/short-urls.js';
import { toUrlDto } from '../../services/links/dto.js';

const tags = ['urls'];

const ShortenHeaders = z.object({
  'x-service-max-views': z.string().optional().describe('the link stops working after this many visits'),
  'x-service-password': z.string().optional().describe('visitors must enter this password first'),
  'x-service-domain': z.string().optional().describe('host name used in the returned link'),
  'x-service-no-json': z.string().optional().describe('"true": answer with the bare link as text/plain'),
});

function parseMaxViews(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,9}$/.test(raw.trim()) || Number(raw) < 1)
    throw new ApiError(1001, 'x-service-max-views must be a positive integer');
  return Number(raw);
}

const UrlIdParams = z.object({ id: Id });

/** Under /api/user, for a signed-in user. */
export const urlRoutes: RouteModule = (app, ctx) => {
  /** The API shape of a URL, its link on the request's own base. */
  const dtoFor = (request: FastifyRequest, row: UrlRow) =>
    toUrlDto(ctx, row, (slug) => urlLink(ctx.settings.get(), publicBaseUrl(ctx, request), slug));

  app.post(
    '/urls',
    {
      // Limited like uploads (ratelimitMax per ratelimitWindow per user, admins bypass), as Zipline's global limiter.
      config: { rateLimit: shortenRateLimit(ctx) },
      schema: {
        tags,
        summary: 'Shorten a URL',
        headers: ShortenHeaders,
        body: z.object({
          destination: DestinationSchema,
          vanity: VanitySchema.optional().describe(
            'a chosen name instead of a random code (1042 when it is taken: the vanity or code of another URL)',
          ),
          enabled: z.boolean().optional(),
        }),
        response: { 200: UrlSchema, 201: z.string().describe('x-service-no-json: the bare link') },
      },
    },
    async (request, reply) => {
      // Each option also under its Zipline name (x-zipline-max-views ...); the x-service- one wins.
      const header = (name: keyof z.infer<typeof ShortenHeaders>) => headerText(request.headers, name);
      const base = publicBaseUrl(ctx, request, header('x-service-domain'));
      const row = await createUrl(ctx, caller(request).user.id, {
        destination: request.body.destination,
        vanity: request.body.vanity,
        enabled: request.body.enabled,
        maxViews: parseMaxViews(header('x-service-max-views')),
        password: header('x-service-password') || undefined,
        baseUrl: base,
      });
      const dto = toUrlDto(ctx, row, (slug) => urlLink(ctx.settings.get(), base, slug));
      if (header('x-service-no-json') === 'true')
        return reply.code(201).type('text/plain; charset=utf-8').send(dto.url);
      return dto;
    },
  );

  app.get(
    '/urls',
    {
      schema: {
        tags,
        summary:
          "The caller's short URLs, newest first; searchQuery matches destination, vanity or code. With page: one " +
          'page object; without: all of them as an array (as Zipline)',
        querystring: z.object({
          searchQuery: z.string().max(1000).optional(),
          searchField: z.enum(['destination', 'vanity', 'code']).optional(),
          page: z.coerce.number().int().min(1).optional().describe('asks for a page object instead of an array'),
          cursor: z
            .string()
            .max(2000)
            .optional()
            .describe("the previous page's nextCursor: the page after it (a page object; page is then not used)"),
          perPage: z.coerce.number().int().min(1).max(500).default(50),
        }),
        response: {
          200: z.union([
            pagedListSchema(UrlSchema),
            z.array(UrlSchema).describe('without page and cursor: every URL (an answer as long as the list)'),
          ]),
        },
      },
    },
    async (request) => {
      const { page, cursor, ...query } = request.query;
      const userId = caller(request).user.id;
      if (page === undefined && cursor === undefined) {
        const { rows } = await listUrls(ctx, userId, { ...query, page: 1, perPage: null });
        return rows.map((row) => dtoFor(request, row));
      }
      const listed = await listUrls(ctx, userId, { ...query, page: page ?? 1, cursor });
      return pagedList(
        listed.rows.map((row) => dtoFor(request, row)),
        listed,
        query.perPage,
      );
    },
  );

  app.get(
    '/urls/:id',
    { schema: { tags, summary: "One of the caller's short URLs", params: UrlIdParams, response: { 200: UrlSchema } } },
    async (request) => dtoFor(request, await getOwnUrl(ctx, caller(request).user.id, request.params.id)),
  );

  app.patch(
    '/urls/:id',
    {
      schema: {
        tags,
        summary: 'Edit a short URL; missing properties stay, null clears vanity, maxViews or password',
        params: UrlIdParams,
        body: z.object({
          destination: DestinationSchema.optional(),
          vanity: VanitySchema.nullable().optional().describe('1041 when another vanity, 1042 when a random code'),
          enabled: z.boolean().optional(),
          maxViews: z.number().int().min(1).nullable().optional(),
          password: z.string().max(1024).nullable().optional(),
        }),
        response: { 200: UrlSchema },
      },
    },
    async (request) => dtoFor(request, await updateUrl(ctx, caller(request).user.id, request.params.id, request.body)),
  );

  app.delete(
    '/urls/:id',
    {
      schema: {
        tags,
        summary: 'Delete a short URL; answers with it',
        params: UrlIdParams,
        response: { 200: UrlSchema },
      },
    },
    async (request) => dtoFor(request, await deleteUrl(ctx, caller(request).user.id, request.params.id)),
  );
};

/** Under /api/user, for anyone: visitors of a protected link unlock it without an account. */
export const urlUnlockRoutes: RouteModule = (app, ctx) => {
  app.post(
    '/urls/:id/password',
    {
      // Visitors of a protected link call this without an account; limited like logins against guessing.
      schema: {
        summary:
          'Unlock a password-protected short URL (by id, code or vanity): a token to follow it with (<link>?token=...)',
        tags,
        params: UrlIdParams,
        body: z.object({ password: z.string().max(1024) }),
        response: {
          200: z.object({
            success: z.literal(true).describe("Zipline's answer"),
            token: z.string(),
            url: z.string().describe('the link with the token, to follow within expiresAt'),
            expiresAt: z.iso.datetime({ offset: true }),
          }),
        },
      },
    },
    async (request) => {
      const { token, slug, expiresAt } = await unlockUrl(
        ctx,
        request.params.id,
        request.body.password,
        passwordGuessGuard(request, 'url'),
      );
      const link = urlLink(ctx.settings.get(), publicBaseUrl(ctx, request), slug);
      return {
        success: true as const,
        token,
        url: `${link}?token=${encodeURIComponent(token)}`,
        expiresAt: new Date(expiresAt).toISOString(),
      };
    },
  );
};
