// The caller's folders: the tree (create, list, read, rename, move, open to the public, delete), the files in them,
// and downloading one as a zip.
import { z } from 'zod';
import { caller } from '../../http/auth.js';
import { publicBaseUrl } from '../../http/links.js';
import type { RouteModule } from '../../http/types.js';
import { contentDisposition } from '../../lib/formats/content-disposition.js';
import { ApiError } from '../../lib/errors.js';
import { Id } from '../../schemas/common.js';
import { FolderDetailSchema, FolderNameSchema, FolderSchema } from '../../schemas/folder.js';
import { pagedList, pagedListSchema } from '../../schemas/paged-list.js';
import { toFileDtos } from '../../services/files/dto.js';
import { ownFolderZip, type FolderZip } from '../../services/serving/zips.js';
import {
  addFileToFolder,
  createFolder,
  deleteFolder,
  deleteFolderReturningIt,
  type FolderDeleteOptions,
  getFolderDetail,
  listFolderPage,
  listFolderPageOf,
  listFolders,
  listFoldersOf,
  removeFileFromFolder,
  updateFolder,
} from '../../services/organise/folders.js';
import { toFolderDto } from '../../services/organise/dto.js';
import type { FastifyReply } from 'fastify';

const tags = ['folders'];
const FolderIdParams = z.object({ id: Id });
/**
 * The page of a folder's files that GET /api/user/folders/:id and the public GET /api/folders/:id answer: the first,
 * or the one after `cursor`; `perpage` files at most.
 */
export const FolderFilesQuery = z.object({
  cursor: z
    .string()
    .max(2000)
    .optional()
    .describe("the previous answer's nextCursor: the page of older files after it"),
  perpage: z.coerce.number().int().min(1).max(500).default(100).describe('files per page'),
});

const ParentId = Id.nullable().describe('the parent folder; null for the top level (1015, 1016, 3003, 4007)');

/** Sends a folder as a streamed zip download. */
export function sendFolderZip(reply: FastifyReply, { folder, stream }: FolderZip) {
  return reply
    .header('content-type', 'application/zip')
    .header('content-disposition', contentDisposition('attachment', `${folder.name}.zip`))
    .header('cache-control', 'no-store')
    .send(stream);
}

/** Zipline's body of DELETE /api/user/folders/:id. */
const ZiplineFolderDelete = z
  .object({
    delete: z.enum(['file', 'folder']),
    id: Id.optional().describe('delete=file: the file to take out of the folder'),
    childrenAction: z.enum(['root', 'folder', 'cascade', 'cascade-files']).optional(),
    targetFolderId: Id.optional().describe('childrenAction=folder: where the children and files go'),
  })
  .strict();

/** What Zipline's childrenAction asks of a folder deletion; folder without a target -> 1019. */
function ziplineDeleteOptions(body: z.infer<typeof ZiplineFolderDelete>): FolderDeleteOptions {
  switch (body.childrenAction) {
    case 'folder':
      if (body.targetFolderId === undefined) throw new ApiError(1019, 'childrenAction folder needs targetFolderId');
      return { files: 'keep', children: { into: body.targetFolderId } };
    case 'cascade':
      return { files: 'keep', children: 'delete' };
    case 'cascade-files':
      return { files: 'delete', children: 'delete' };
    default:
      return { files: 'keep', children: 'root' };
  }
}

/** Zipline's name for `public` on POST and PATCH /api/user/folders[/:id]. */
const IsPublic = z.boolean().optional().describe("Zipline's name for public (when both come, public wins)");

/** `public` from the body, under Chute's name or Zipline's `isPublic`. */
function publicFlag(body: { public?: boolean | undefined; isPublic?: boolean | undefined }): boolean | undefined {
  return body.public ?? body.isPublic;
}

/** Under /api/user, for a signed-in user. */
export const folderRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/folders',
    {
      schema: {
        tags,
        summary:
          "The caller's folders by name: all, the top level (parentId=root) or one folder's children; with page or " +
          'cursor, one page object',
        description:
          "Zipline's root=true is parentId=root; noincl is accepted (folders are listed without their files: " +
          'each has fileCount; GET /api/user/folders/:id has the files).',
        querystring: z.object({
          parentId: z.string().max(64).optional().describe('a folder id, or "root"'),
          root: z.enum(['true', 'false']).optional().describe("Zipline's: true lists the top level only"),
          noincl: z.string().max(10).optional().describe("Zipline's: accepted; folders never list their files here"),
          user: Id.optional().describe("Zipline's, admins: another user's folders (4009 unknown, 3000 not managed)"),
          page: z.coerce.number().int().min(1).optional().describe('asks for a page object instead of an array'),
          cursor: z
            .string()
            .max(2000)
            .optional()
            .describe("the previous page's nextCursor: the page after it (a page object; page is then not used)"),
          perpage: z.coerce.number().int().min(1).max(500).default(50),
        }),
        response: {
          200: z.union([
            z.array(FolderSchema).describe('without page and cursor: every folder asked for (as long as the list)'),
            pagedListSchema(FolderSchema),
          ]),
        },
      },
    },
    async (request) => {
      const { parentId, root, user, page, cursor, perpage } = request.query;
      const parent = parentId === 'root' || (parentId === undefined && root === 'true') ? null : parentId;
      const me = caller(request).user;
      if (page !== undefined || cursor !== undefined) {
        const query = { page: page ?? 1, perPage: perpage, cursor };
        const listed =
          user === undefined
            ? await listFolderPage(ctx, me.id, parent, query)
            : await listFolderPageOf(ctx, me, user, parent, query);
        return pagedList(listed.rows.map(toFolderDto), listed, perpage);
      }
      const rows =
        user === undefined ? await listFolders(ctx, me.id, parent) : await listFoldersOf(ctx, me, user, parent);
      return rows.map(toFolderDto);
    },
  );

  app.post(
    '/folders',
    {
      schema: {
        tags,
        summary: "Create a folder, optionally inside another of the caller's folders",
        body: z.object({
          name: FolderNameSchema,
          public: z.boolean().optional(),
          isPublic: IsPublic,
          allowUploads: z.boolean().optional(),
          parentId: ParentId.optional(),
          files: z
            .array(Id)
            .max(1000)
            .optional()
            .describe("Zipline's key: ids of the caller's files to put into the new folder (4000 when one is not)"),
        }),
        response: { 200: FolderSchema },
      },
    },
    async (request) => {
      const { isPublic: _isPublic, files, ...input } = request.body;
      const userId = caller(request).user.id;
      return toFolderDto(
        await createFolder(ctx, userId, { ...input, public: publicFlag(request.body), fileIds: files ?? [] }),
      );
    },
  );

  app.get(
    '/folders/:id',
    {
      schema: {
        tags,
        summary: 'A folder with a page of its files (newest first), its child folders and its path from the top',
        description:
          'The files come a page at a time (perpage, 100 by default): nextCursor, passed as ?cursor=, gives the ' +
          'next page of older files; fileCount is the number of all of them.',
        params: FolderIdParams,
        querystring: FolderFilesQuery,
        response: { 200: FolderDetailSchema },
      },
    },
    async (request) => {
      const { cursor, perpage } = request.query;
      const detail = await getFolderDetail(ctx, caller(request).user.id, request.params.id, { size: perpage, cursor });
      return {
        ...toFolderDto(detail.folder),
        files: await toFileDtos(ctx, publicBaseUrl(ctx, request), detail.files),
        nextCursor: detail.nextCursor,
        children: detail.children.map(toFolderDto),
        parents: detail.parents,
      };
    },
  );

  app.patch(
    '/folders/:id',
    {
      schema: {
        tags,
        summary: 'Rename, move (parentId), open or close a folder; missing properties stay',
        params: FolderIdParams,
        body: z.object({
          name: FolderNameSchema.optional(),
          public: z.boolean().optional(),
          isPublic: IsPublic,
          allowUploads: z.boolean().optional(),
          parentId: ParentId.optional(),
        }),
        response: { 200: FolderSchema },
      },
    },
    async (request) => {
      const { isPublic: _isPublic, ...patch } = request.body;
      return toFolderDto(
        await updateFolder(ctx, caller(request).user.id, request.params.id, {
          ...patch,
          public: publicFlag(request.body),
        }),
      );
    },
  );

  app.delete(
    '/folders/:id',
    {
      schema: {
        tags,
        summary: 'Delete a folder, or (Zipline\'s body {delete: "file", id}) take one file out of it',
        description:
          "Chute's form (no body): files=keep (default) leaves the folder's files unfiled, files=delete deletes them " +
          'with their bytes; children=delete (default) deletes the folders below too, children=lift moves them up to ' +
          "its parent. Zipline's form (a JSON body): delete=file takes the file `id` out of the folder (1013, 4000, " +
          '1012) and answers the folder; delete=folder deletes it and answers it with success: true, its child ' +
          'folders going to the top level (childrenAction root, the default), into targetFolderId (folder; 4008, 1016; ' +
          'its files go there too) or deleted with it (cascade keeps their files unfiled, cascade-files deletes them). ' +
          'A body of another shape, or a body together with files= or children=, is refused with 1000.',
        params: FolderIdParams,
        querystring: z.object({
          files: z.enum(['keep', 'delete']).optional(),
          children: z.enum(['delete', 'lift']).optional(),
        }),
        body: ZiplineFolderDelete.nullish(),
        response: {
          200: z.union([
            z.object({
              folders: z.number().int().describe('folders deleted'),
              deletedFiles: z.number().int(),
              keptFiles: z.number().int().describe('files that were in deleted folders and are now unfiled'),
            }),
            FolderSchema.extend({ success: z.literal(true) }).describe("Zipline's form, delete=folder: the folder"),
            FolderSchema.describe("Zipline's form, delete=file: the folder the file left"),
          ]),
        },
      },
    },
    async (request) => {
      const userId = caller(request).user.id;
      const { body, query } = request;
      if (body === undefined || body === null) {
        return deleteFolder(ctx, userId, request.params.id, {
          files: query.files ?? 'keep',
          children: query.children ?? 'delete',
        });
      }
      if (query.files !== undefined || query.children !== undefined) {
        throw new ApiError(1000, "send either Zipline's body or ?files= and ?children=, not both");
      }
      if (body.delete === 'file') {
        if (body.id === undefined) throw new ApiError(1013);
        return toFolderDto(await removeFileFromFolder(ctx, userId, request.params.id, body.id));
      }
      const folder = await deleteFolderReturningIt(ctx, userId, request.params.id, ziplineDeleteOptions(body));
      return { ...toFolderDto(folder), success: true as const };
    },
  );

  // POST .../files is Chute's address, PUT /api/user/folders/:id Zipline's; the same body, answer and codes.
  for (const route of [
    { method: 'post', url: '/folders/:id/files', summary: "Put one of the caller's files into the folder" },
    { method: 'put', url: '/folders/:id', summary: "Zipline's address of POST /api/user/folders/:id/files" },
  ] as const) {
    app[route.method](
      route.url,
      {
        schema: {
          tags,
          summary: route.summary,
          description: "1013 without id, 4000 for a file that is not the caller's, 1011 when it is already there.",
          params: FolderIdParams,
          body: z.object({ id: Id.optional().describe('the file') }),
          response: { 200: FolderSchema },
        },
      },
      async (request) => {
        if (request.body.id === undefined) throw new ApiError(1013);
        return toFolderDto(await addFileToFolder(ctx, caller(request).user.id, request.params.id, request.body.id));
      },
    );
  }

  app.delete(
    '/folders/:id/files/:fileId',
    {
      schema: {
        tags,
        summary: 'Take a file out of the folder; it stays, unfiled (1012 when it is not in the folder)',
        params: z.object({ id: Id, fileId: Id }),
        response: { 200: FolderSchema },
      },
    },
    async (request) =>
      toFolderDto(await removeFileFromFolder(ctx, caller(request).user.id, request.params.id, request.params.fileId)),
  );

  for (const [url, summary] of [
    ['/folders/:id/zip', 'Download the folder and the folders below it as a zip (streamed)'],
    ['/folders/:id/export', "Zipline's address of GET /api/user/folders/:id/zip"],
  ] as const) {
    app.get(url, { schema: { tags, summary, params: FolderIdParams } }, async (request, reply) =>
      sendFolderZip(reply, await ownFolderZip(ctx, caller(request).user.id, request.params.id)),
    );
  }
};
