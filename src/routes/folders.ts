// The caller's folders: the tree (create, list, read, rename, move, open to the public, delete), the files in them,
// and downloading one as a zip.
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { caller, requireUser } from '../http/auth.js';
import { publicBaseUrl } from '../http/links.js';
import { guardedRoute } from '../http/openapi.js';
import type { RouteModule } from '../http/types.js';
import { contentDisposition } from '../lib/content-disposition.js';
import { Id } from '../schemas/common.js';
import { FolderDetailSchema, FolderNameSchema, FolderSchema } from '../schemas/folder.js';
import { toFileDtos } from '../services/files.js';
import { folderZipStream } from '../services/folder-zip.js';
import {
  addFileToFolder,
  createFolder,
  deleteFolder,
  getFolderDetail,
  getOwnFolder,
  listFolders,
  removeFileFromFolder,
  toFolderDto,
  updateFolder,
} from '../services/folders.js';
import type { FolderRow } from '../db/types.js';
import type { FastifyReply } from 'fastify';

const tags = ['folders'];
const FolderIdParams = z.object({ id: Id });
const ParentId = Id.nullable().describe('the parent folder; null for the top level (1015, 1016, 3003, 4007)');

/** Sends a folder as a streamed zip download. */
export async function sendFolderZip(
  ctx: AppContext,
  reply: FastifyReply,
  folder: FolderRow,
  audience: 'owner' | 'public',
) {
  const stream = await folderZipStream(ctx, folder, { audience });
  return reply
    .header('content-type', 'application/zip')
    .header('content-disposition', contentDisposition('attachment', `${folder.name}.zip`))
    .header('cache-control', 'no-store')
    .send(stream);
}

export const folderRoutes: RouteModule = (app, ctx) => {
  const guarded = guardedRoute(requireUser(ctx), tags);

  app.get(
    '/api/user/folders',
    guarded({
      summary: "The caller's folders by name: all, the top level (parentId=root) or one folder's children",
      querystring: z.object({ parentId: z.string().max(64).optional().describe('a folder id, or "root"') }),
      response: { 200: z.array(FolderSchema) },
    }),
    async (request) => {
      const { parentId } = request.query;
      const rows = await listFolders(ctx, caller(request).user.id, parentId === 'root' ? null : parentId);
      return rows.map(toFolderDto);
    },
  );

  app.post(
    '/api/user/folders',
    guarded({
      summary: "Create a folder, optionally inside another of the caller's folders",
      body: z.object({
        name: FolderNameSchema,
        public: z.boolean().optional(),
        allowUploads: z.boolean().optional(),
        parentId: ParentId.optional(),
      }),
      response: { 200: FolderSchema },
    }),
    async (request) => toFolderDto(await createFolder(ctx, caller(request).user.id, request.body)),
  );

  app.get(
    '/api/user/folders/:id',
    guarded({
      summary: 'A folder with its files, child folders and path from the top',
      params: FolderIdParams,
      response: { 200: FolderDetailSchema },
    }),
    async (request) => {
      const detail = await getFolderDetail(ctx, caller(request).user.id, request.params.id);
      return {
        ...toFolderDto(detail.folder),
        files: await toFileDtos(ctx, publicBaseUrl(ctx, request), detail.files),
        children: detail.children.map(toFolderDto),
        parents: detail.parents,
      };
    },
  );

  app.patch(
    '/api/user/folders/:id',
    guarded({
      summary: 'Rename, move (parentId), open or close a folder; missing properties stay',
      params: FolderIdParams,
      body: z.object({
        name: FolderNameSchema.optional(),
        public: z.boolean().optional(),
        allowUploads: z.boolean().optional(),
        parentId: ParentId.optional(),
      }),
      response: { 200: FolderSchema },
    }),
    async (request) => toFolderDto(await updateFolder(ctx, caller(request).user.id, request.params.id, request.body)),
  );

  app.delete(
    '/api/user/folders/:id',
    guarded({
      summary:
        'Delete a folder; files=keep (default) leaves its files unfiled, files=delete deletes them with their bytes; ' +
        'children=delete (default) deletes the folders below too, children=lift moves them up to its parent',
      params: FolderIdParams,
      querystring: z.object({
        files: z.enum(['keep', 'delete']).default('keep'),
        children: z.enum(['delete', 'lift']).default('delete'),
      }),
      response: {
        200: z.object({
          folders: z.number().int().describe('folders deleted'),
          deletedFiles: z.number().int(),
          keptFiles: z.number().int().describe('files that were in deleted folders and are now unfiled'),
        }),
      },
    }),
    async (request) => deleteFolder(ctx, caller(request).user.id, request.params.id, request.query),
  );

  app.post(
    '/api/user/folders/:id/files',
    guarded({
      summary: "Put one of the caller's files into the folder (1011 when it is already there)",
      params: FolderIdParams,
      body: z.object({ id: Id.describe('the file') }),
      response: { 200: FolderSchema },
    }),
    async (request) =>
      toFolderDto(await addFileToFolder(ctx, caller(request).user.id, request.params.id, request.body.id)),
  );

  app.delete(
    '/api/user/folders/:id/files/:fileId',
    guarded({
      summary: 'Take a file out of the folder; it stays, unfiled (1012 when it is not in the folder)',
      params: z.object({ id: Id, fileId: Id }),
      response: { 200: FolderSchema },
    }),
    async (request) =>
      toFolderDto(await removeFileFromFolder(ctx, caller(request).user.id, request.params.id, request.params.fileId)),
  );

  app.get(
    '/api/user/folders/:id/zip',
    guarded({
      summary: 'Download the folder and the folders below it as a zip (streamed)',
      params: FolderIdParams,
    }),
    async (request, reply) => {
      const folder = await getOwnFolder(ctx, caller(request).user.id, request.params.id);
      return sendFolderZip(ctx, reply, folder, 'owner');
    },
  );
};
