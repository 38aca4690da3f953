// Public folders for anonymous visitors: the page /folder/<id>, the same content as JSON, the zip download, and
// uploading into a folder whose owner allows it. A folder that is not open answers 3002; a missing one 4001.
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { cutOffRequestBody } from '../http/cut-off-body.js';
import { ApiError } from '../http/errors.js';
import { fileLink, publicBaseUrl } from '../http/links.js';
import { uploadFileParts } from '../http/multipart.js';
import { uploadRateLimit } from '../http/rate-limit.js';
import type { RouteModule } from '../http/types.js';
import { toIso } from '../lib/clock.js';
import { renderFolderPage } from '../pages/folder-page.js';
import { Id } from '../schemas/common.js';
import { UploadResponseSchema } from '../schemas/file.js';
import { PublicFolderSchema, type PublicFolderDto } from '../schemas/folder.js';
import { findPublicFolder, findUploadFolder, getPublicFolder } from '../services/folders.js';
import { parseUploadOptions } from '../services/upload-options.js';
import { uploadFiles } from '../services/uploads.js';
import { sendFolderZip } from './folders.js';

const tags = ['folders'];
const FolderIdParams = z.object({ id: Id });
/** Most files in one anonymous upload request. */
const MAX_ANONYMOUS_FILES = 20;

async function publicFolderDto(ctx: AppContext, base: string, id: string): Promise<PublicFolderDto> {
  const view = await getPublicFolder(ctx, id);
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
      originalName: f.original_name,
      type: f.type,
      size: f.size,
      createdAt: toIso(f.created_at),
      password: f.password !== null,
      url: fileLink(ctx, base, f.name),
    })),
    children: view.children,
    zipUrl: `${base}/api/folders/${encodeURIComponent(id)}/zip`,
  };
}

export const publicFolderRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/api/folders/:id',
    {
      schema: {
        summary: 'A public folder as anonymous visitors see it: files with their links, public child folders',
        tags,
        params: FolderIdParams,
        response: { 200: PublicFolderSchema },
      },
    },
    async (request) => publicFolderDto(ctx, publicBaseUrl(ctx, request), request.params.id),
  );

  app.get(
    '/api/folders/:id/zip',
    { schema: { summary: 'Download a public folder (and its public child folders) as a zip', tags, params: FolderIdParams } },
    async (request, reply) => sendFolderZip(ctx, reply, await findPublicFolder(ctx, request.params.id), 'public'),
  );

  app.get(
    '/folder/:id',
    { schema: { summary: 'The page of a public folder', tags, params: FolderIdParams } },
    async (request, reply) => {
      const folder = await publicFolderDto(ctx, publicBaseUrl(ctx, request), request.params.id);
      const page = renderFolderPage({
        siteTitle: ctx.settings.get().siteTitle,
        folder,
        uploadPath: `/api/folders/${encodeURIComponent(folder.id)}/upload`,
      });
      return reply
        .header('content-security-policy', page.csp)
        .header('x-content-type-options', 'nosniff')
        .type('text/html; charset=utf-8')
        .send(page.html);
    },
  );

  app.post(
    '/api/folders/:id/upload',
    {
      config: { rateLimit: uploadRateLimit(ctx) },
      schema: {
        summary: "Upload into a folder whose owner accepts anonymous uploads; the files are the owner's (owner's quota)",
        description: 'Multipart parts named file, stored with the server defaults. Not open for uploads -> 3002.',
        tags,
        params: FolderIdParams,
        consumes: ['multipart/form-data'],
        response: { 200: UploadResponseSchema },
      },
    },
    async (request, reply) => {
      try {
        const folder = await findUploadFolder(ctx, request.params.id);
        if (!request.isMultipart()) throw new ApiError(1061, 'send multipart/form-data with parts named file');
        // Visitors choose nothing but the bytes: the owner's folder, the server's default name format and expiry.
        const options = { ...parseUploadOptions({}, ctx.settings.get(), ctx.clock.now()), folderId: folder.id, keepOriginalName: true };
        return await uploadFiles(ctx, {
          user: { id: folder.user_id },
          options,
          baseUrl: publicBaseUrl(ctx, request),
          files: uploadFileParts(request, MAX_ANONYMOUS_FILES),
        });
      } catch (err) {
        // Refused (closed folder, size, quota): answer now and close rather than read the rest of the body.
        cutOffRequestBody(request, reply);
        throw err;
      }
    },
  );
};
