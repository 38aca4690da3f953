// Share links of a file, managed by whoever manages the file: POST/GET /api/user/files/:id/shares and
// DELETE /api/user/files/:id/shares/:shareId. The links themselves are served by routes/files/shares.ts (/s/<id>).
import { z } from 'zod';
import { caller, requireUser } from '../../http/auth.js';
import { publicBaseUrl } from '../../http/links.js';
import { guardedRoute } from '../../http/openapi.js';
import type { RouteModule } from '../../http/types.js';
import { shareLink } from '../../lib/text/links.js';
import { IsoDateTime } from '../../schemas/common.js';
import { createShare, listShares, revokeShare, type ShareDto } from '../../services/serving/share-links.js';

const tags = ['files'];
const fileParams = z.object({ id: z.string().min(1).max(1024).describe('file id or served name') });

const ShareSchema = z
  .object({
    id: z.string().describe('the random part of the link: /s/<id>'),
    url: z.string().describe('the share link'),
    fileId: z.string(),
    passwordProtected: z.boolean(),
    maxViews: z.number().int().nullable(),
    views: z.number().int(),
    expiresAt: IsoDateTime.nullable(),
    createdAt: IsoDateTime,
  })
  .meta({ id: 'FileShare' });

export const fileShareRoutes: RouteModule = (app, ctx) => {
  const guarded = guardedRoute(requireUser(ctx), tags);
  const withUrl = (base: string, share: ShareDto) => ({ ...share, url: shareLink(base, share.id) });

  app.post(
    '/api/user/files/:id/shares',
    guarded({
      summary: 'Make a share link to a file, with its own password, view limit and expiry',
      description:
        "The link opens the file even when it is private; its password replaces the file's. Unknown file -> 4000.",
      params: fileParams,
      body: z.object({
        password: z.string().max(1024).nullable().optional().describe('asked by the link; absent or null: none'),
        maxViews: z.number().int().min(1).max(2_147_483_647).nullable().optional(),
        expiresAt: z
          .string()
          .max(64)
          .nullable()
          .optional()
          .describe('ISO date-time or a duration from now such as 7d; absent, null or "never": no expiry'),
      }),
      response: { 200: ShareSchema },
    }),
    async (request) =>
      withUrl(
        publicBaseUrl(ctx, request),
        await createShare(ctx, caller(request).user, request.params.id, request.body),
      ),
  );

  app.get(
    '/api/user/files/:id/shares',
    guarded({
      summary: "A file's share links, newest first",
      params: fileParams,
      response: { 200: z.array(ShareSchema) },
    }),
    async (request) => {
      const base = publicBaseUrl(ctx, request);
      return (await listShares(ctx, caller(request).user, request.params.id)).map((s) => withUrl(base, s));
    },
  );

  app.delete(
    '/api/user/files/:id/shares/:shareId',
    guarded({
      summary: 'Revoke a share link: it answers 404 from now on (4000 when unknown)',
      params: fileParams.extend({ shareId: z.string().min(1).max(64) }),
      response: { 200: ShareSchema },
    }),
    async (request) =>
      withUrl(
        publicBaseUrl(ctx, request),
        await revokeShare(ctx, caller(request).user, request.params.id, request.params.shareId),
      ),
  );
};
