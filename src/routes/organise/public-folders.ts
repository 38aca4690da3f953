// Public folders for anonymous visitors: the page /folder/<id>, the same content as JSON, the zip download, and
// uploading into a folder whose owner allows it (as JSON, or from the page's plain form: POST /folder/<id>, which
// answers 303 back to the page). A folder that is not open answers 3002; a missing one 4001.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { ApiError } from '../../lib/errors.js';
import { publicBaseUrl } from '../../http/links.js';
import { fileLink, linkNameOf, rawLink } from '../../lib/text/links.js';
import { assertMultipart, receiving, storeUploadParts } from '../../http/uploads/multipart.js';
import { pageErrorHandler, pageErrorText, sendPage } from '../../http/serving/pages.js';
import { uploadRateLimit } from '../../http/rate-limit.js';
import type { RouteModule } from '../../http/types.js';
import { toIso } from '../../lib/clock.js';
import { mediaKind } from '../../lib/formats/media-types.js';
import { renderErrorPage } from '../../pages/error-page.js';
import { renderFolderPage } from '../../pages/folder-page.js';
import { Id } from '../../schemas/common.js';
import { UploadResponseSchema, type UploadResponse } from '../../schemas/file.js';
import { PublicFolderSchema, type PublicFolderDto } from '../../schemas/folder.js';
import { findUploadFolder, getPublicFolder, type FolderFilesPage } from '../../services/organise/folders.js';
import { publicThumbnailName } from '../../services/media/thumbnail-names.js';
import { publicFolderZip } from '../../services/serving/zips.js';
import { parseUploadOptions } from '../../http/uploads/headers.js';
import { FolderFilesQuery, sendFolderZip } from './folders.js';

const tags = ['folders'];
const FolderIdParams = z.object({ id: Id });
/** Files on one page of a public folder (the older ones on the next, through a cursor). */
const FOLDER_PAGE_FILES = 120;
/** Most files in one anonymous upload request. */
const MAX_ANONYMOUS_FILES = 20;

async function publicFolderDto(
  ctx: AppContext,
  base: string,
  id: string,
  page: FolderFilesPage,
): Promise<PublicFolderDto> {
  const view = await getPublicFolder(ctx, id, page);
  return {
    id: view.folder.id,
    name: view.folder.name,
    allowUploads: view.folder.allow_uploads === 1,
    createdAt: toIso(view.folder.created_at),
    updatedAt: toIso(view.folder.updated_at),
    parent: view.parent,
    files: view.files.map((f) => ({
      id: f.id,
      name: f.name,
      // A password-protected file's original name may say what the password guards: visitors see the served name.
      originalName: f.password === null ? f.original_name : null,
      type: f.type,
      size: f.size,
      createdAt: toIso(f.created_at),
      password: f.password !== null,
      url: fileLink(ctx.settings.get(), base, linkNameOf(f)),
    })),
    nextCursor: view.nextCursor,
    children: view.children,
    zipUrl: `${base}/api/folders/${encodeURIComponent(id)}/zip`,
  };
}

/** Stores a visitor's files in the folder (with the server defaults). */
async function uploadIntoFolder(
  ctx: AppContext,
  folderId: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<UploadResponse> {
  // Refused (closed folder, size, quota): answered now, and the rest of the body is not read.
  return receiving(request, reply, async () => {
    const folder = await findUploadFolder(ctx, folderId);
    assertMultipart(request);
    // Visitors choose nothing but the bytes: the owner's folder, the server's default name format and expiry.
    const options = {
      ...parseUploadOptions({}, ctx.settings.get(), ctx.clock.now()),
      folderId: folder.id,
      keepOriginalName: true,
    };
    return storeUploadParts(ctx, request, { user: { id: folder.user_id }, options, maxFiles: MAX_ANONYMOUS_FILES });
  });
}

/** Why an upload from the folder page failed, in words. */
function uploadFailure(error: ApiError): string {
  switch (error.code) {
    case 5001:
      return 'A file is larger than this server accepts.';
    case 5002:
      return "The folder's owner has no storage space left for these files.";
    case 3002:
      return 'This folder does not accept uploads.';
    case 1006:
      return 'This type of file is not accepted here.';
    case 1061:
      return 'Choose at least one file to upload.';
    default:
      return pageErrorText(error).message;
  }
}

/** For anyone, in a group without prefix (full URLs). */
export const publicFolderRoutes: RouteModule = (app, ctx) => {
  for (const [url, summary] of [
    ['/api/folders/:id', 'A public folder as anonymous visitors see it: files with their links, public child folders'],
    ['/api/server/folder/:id', "Zipline's address of GET /api/folders/:id (?uploads is accepted and changes nothing)"],
  ] as const) {
    app.get(
      url,
      {
        schema: {
          summary,
          tags,
          params: FolderIdParams,
          description:
            'The files come a page at a time (perpage, 100 by default): nextCursor, passed as ?cursor=, gives the ' +
            'next page of older files.',
          querystring: FolderFilesQuery.extend({ uploads: z.string().optional() }),
          response: { 200: PublicFolderSchema },
        },
      },
      async (request) =>
        publicFolderDto(ctx, publicBaseUrl(ctx, request), request.params.id, {
          size: request.query.perpage,
          cursor: request.query.cursor,
        }),
    );
  }

  app.get(
    '/api/folders/:id/zip',
    {
      schema: {
        summary: 'Download a public folder (and its public child folders) as a zip',
        tags,
        params: FolderIdParams,
      },
    },
    async (request, reply) => sendFolderZip(reply, await publicFolderZip(ctx, request.params.id)),
  );

  app.get(
    '/folder/:id',
    {
      schema: {
        summary: 'The page of a public folder',
        tags,
        params: FolderIdParams,
        querystring: z.object({
          uploaded: z.string().max(10).optional().describe('files just uploaded from the page (a notice)'),
          after: z.string().max(2000).optional().describe('the link to older files: the page of files after these'),
        }),
      },
      errorHandler: pageErrorHandler(ctx),
    },
    async (request, reply) => {
      const view = await getPublicFolder(ctx, request.params.id, {
        size: FOLDER_PAGE_FILES,
        cursor: request.query.after,
      });
      const uploaded = Number.parseInt(request.query.uploaded ?? '', 10);
      const page = renderFolderPage({
        siteTitle: ctx.settings.get().siteTitle,
        folder: { id: view.folder.id, name: view.folder.name, allowUploads: view.folder.allow_uploads === 1 },
        parent: view.parent,
        children: view.children,
        files: view.files.map((f) => ({
          name: f.name,
          displayName: (f.password === null ? f.original_name : null) ?? f.name,
          type: f.type,
          size: f.size,
          createdAt: f.created_at,
          password: f.password !== null,
          // The made thumbnail counts no view; loading the image itself does: never for a file whose views are limited.
          thumbnail:
            f.password !== null
              ? null
              : f.thumbnail_key
                ? rawLink('', publicThumbnailName(f.id))
                : mediaKind(f.type) === 'image' && f.max_views === null
                  ? rawLink('', f.name)
                  : null,
        })),
        uploaded: Number.isFinite(uploaded) ? uploaded : undefined,
        olderPage: view.nextCursor,
        newerPages: request.query.after !== undefined,
      });
      return sendPage(reply, page, 200, 'private, no-cache');
    },
  );

  app.post(
    '/folder/:id',
    {
      config: { rateLimit: uploadRateLimit(ctx) },
      schema: {
        summary:
          "The upload form of a public folder's page: files stored as with /api/folders/:id/upload, then 303 to the page",
        description: 'Multipart parts named file, for browsers. Failures answer a page saying what went wrong.',
        tags,
        params: FolderIdParams,
        consumes: ['multipart/form-data'],
      },
      errorHandler: pageErrorHandler(ctx, (error, request, reply) => {
        const { id } = request.params as { id: string };
        const page = renderErrorPage({
          siteTitle: ctx.settings.get().siteTitle,
          title: 'The upload did not work',
          message: uploadFailure(error),
          back: { href: `/folder/${encodeURIComponent(id)}`, label: 'Back to the folder' },
        });
        return sendPage(reply, page, error.statusCode);
      }),
    },
    async (request, reply) => {
      const result = await uploadIntoFolder(ctx, request.params.id, request, reply);
      const location = `/folder/${encodeURIComponent(request.params.id)}?uploaded=${result.files.length}`;
      return reply.code(303).header('cache-control', 'no-store').header('location', location).send();
    },
  );

  app.post(
    '/api/folders/:id/upload',
    {
      config: { rateLimit: uploadRateLimit(ctx) },
      schema: {
        summary:
          "Upload into a folder whose owner accepts anonymous uploads; the files are the owner's (owner's quota)",
        description: 'Multipart parts named file, stored with the server defaults. Not open for uploads -> 3002.',
        tags,
        params: FolderIdParams,
        consumes: ['multipart/form-data'],
        response: { 200: UploadResponseSchema },
      },
    },
    async (request, reply) => uploadIntoFolder(ctx, request.params.id, request, reply),
  );
};
