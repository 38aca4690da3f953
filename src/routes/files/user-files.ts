// The caller's files: list/search, one file (read, edit, delete, its bytes for the owner's previews), bulk edits and
// deletes, recent files, statistics, and trading a file's password for an access token.
import { z } from 'zod';
import { caller } from '../../http/auth.js';
import { publicBaseUrl } from '../../http/links.js';
import { bytesRequestOf, sendPlannedBytes, sendThumbnail } from '../../http/serving/send-bytes.js';
import type { RouteModule } from '../../http/types.js';
import { passwordGuessGuard } from '../../http/rate-limit.js';
import { rawLink } from '../../lib/text/links.js';
import { Id, IsoDateTime } from '../../schemas/common.js';
import { FileSchema, FileStatsSchema } from '../../schemas/file.js';
import { pagedList, pagedListSchema } from '../../schemas/paged-list.js';
import { ownBytesPlan, unlockFile } from '../../services/serving/files.js';
import {
  deleteFile,
  deleteFilesInBulk,
  FILE_SORT_FIELDS,
  fileStats,
  findManagedFile,
  recentFiles,
  updateFileAndTags,
  updateFilesInBulk,
} from '../../services/files/manage.js';
import { toFileDto, toFileDtos } from '../../services/files/dto.js';
import { listFiles } from '../../services/lists/files.js';
import { FILE_LIST_FILTERS, FILE_LIST_SEARCH_FIELDS, type FileListSearchField } from '../../lib/file-list.js';
import { openOwnThumbnail } from '../../services/media/thumbnails.js';

const tags = ['files'];
const fileParams = z.object({ id: z.string().min(1).max(1024).describe('file id or served name') });
const booleanText = z.enum(['true', 'false']).transform((v) => v === 'true');

/** The `search.query` of the answer: for tags, the ids as a list (as Zipline answers it). */
function searchAnswer(field: FileListSearchField, query: string): string | string[] {
  if (field !== 'tags') return query;
  return query
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

/** Under /api/user, for a signed-in user. */
export const userFilesRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/files',
    {
      schema: {
        tags,
        summary: "A page of the caller's files (admins: ?id=<userId> for another user's)",
        querystring: z.object({
          page: z.coerce.number().int().min(1).default(1),
          cursor: z
            .string()
            .max(2000)
            .optional()
            .describe("the previous answer's nextCursor: the page after it, in the same order (page is then not used)"),
          perpage: z.coerce.number().int().min(1).max(500).default(15),
          sortBy: z.enum(FILE_SORT_FIELDS).default('createdAt'),
          order: z.enum(['asc', 'desc']).default('desc'),
          searchField: z
            .enum(FILE_LIST_SEARCH_FIELDS)
            .default('name')
            .describe(
              'tags: searchQuery is comma-separated tag ids, files with all of them (1032 for a tag not theirs)',
            ),
          searchQuery: z.string().max(1000).optional().describe('case-insensitive substring of searchField'),
          favorite: booleanText.optional(),
          filter: z
            .enum(FILE_LIST_FILTERS)
            .optional()
            .describe("Zipline's: dashboard lists images, videos, audio and text only; all ignores favorite"),
          tags: z.string().max(10_000).optional().describe('comma-separated tag ids: files with any of them'),
          folder: Id.optional().describe('only files in this folder'),
          id: Id.optional().describe("admins: whose files (a user's id)"),
        }),
        response: {
          200: pagedListSchema(
            FileSchema,
            'pass as ?cursor= for the next page (keyset: no file skipped or repeated); null on the last page',
          ).extend({
            search: z
              .object({ field: z.enum(FILE_LIST_SEARCH_FIELDS), query: z.union([z.string(), z.array(z.string())]) })
              .optional()
              .describe('the search asked for (for tags, the tag ids as a list, as Zipline)'),
          }),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const tagIds = q.tags
        ?.split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      const listed = await listFiles(ctx, caller(request).user, {
        page: q.page,
        cursor: q.cursor,
        perPage: q.perpage,
        sortBy: q.sortBy,
        order: q.order,
        searchField: q.searchField,
        searchQuery: q.searchQuery,
        favorite: q.favorite,
        filter: q.filter,
        tagIds,
        folderId: q.folder,
        userId: q.id,
      });
      return {
        ...pagedList(await toFileDtos(ctx, publicBaseUrl(ctx, request), listed.rows), listed, q.perpage),
        ...(q.searchQuery
          ? { search: { field: q.searchField, query: searchAnswer(q.searchField, q.searchQuery) } }
          : {}),
      };
    },
  );

  app.get(
    '/recent',
    {
      schema: {
        tags,
        summary: "The caller's newest files",
        querystring: z.object({ take: z.coerce.number().int().min(1).max(100).default(3) }),
        response: { 200: z.array(FileSchema) },
      },
    },
    async (request) =>
      toFileDtos(ctx, publicBaseUrl(ctx, request), await recentFiles(ctx, caller(request).user, request.query.take)),
  );

  app.get(
    '/stats',
    {
      schema: {
        tags,
        summary: "The caller's totals: files, favourites, views, bytes stored, short URLs, files by type",
        response: {
          200: FileStatsSchema,
        },
      },
    },
    async (request) => fileStats(ctx, caller(request).user),
  );

  const bulkFiles = z.array(Id).min(1).max(1000);
  // Deletes go in short batches (services/files/deletions.ts), so one request may name more.
  const bulkDeletedFiles = z.array(Id).min(1).max(10_000);

  app.patch(
    '/files/transaction',
    {
      schema: {
        tags,
        summary: 'Favourite/unfavourite many files, or move them into a folder (folder: null takes them out)',
        body: z.object({ files: bulkFiles, favorite: z.boolean().optional(), folder: Id.nullable().optional() }),
        response: { 200: z.object({ count: z.number().int(), name: z.string().optional() }) },
      },
    },
    async (request) => updateFilesInBulk(ctx, caller(request).user, request.body),
  );

  app.delete(
    '/files/transaction',
    {
      schema: {
        tags,
        summary: 'Delete many files and their bytes (or only the records: delete_datasourceFiles false)',
        description:
          "Zipline's delete_datasourceFiles: absent or true, the bytes go with the records; false, only the " +
          'records go and the bytes stay in storage (bytes kept in the database are moved into the datasource ' +
          'first), where GET /api/server/orphaned_files lists them and DELETE removes them.',
        body: z.object({ files: bulkDeletedFiles, delete_datasourceFiles: z.boolean().optional() }),
        response: { 200: z.object({ count: z.number().int() }) },
      },
    },
    async (request) =>
      deleteFilesInBulk(ctx, caller(request).user, request.body.files, {
        keepBytes: request.body.delete_datasourceFiles === false,
      }),
  );

  app.get(
    '/files/:id',
    { schema: { tags, summary: 'One file (by id or served name)', params: fileParams, response: { 200: FileSchema } } },
    async (request) => {
      const row = await findManagedFile(ctx, caller(request).user, request.params.id);
      return (await toFileDtos(ctx, publicBaseUrl(ctx, request), [row]))[0]!;
    },
  );

  app.patch(
    '/files/:id',
    {
      schema: {
        tags,
        summary:
          'Edit a file: rename, favourite, originalName, password (null clears), maxViews (null or 0 clears), type, ' +
          'deletesAt (a future date; null keeps the file), private (served only to the owner and through share links), ' +
          "tags (Zipline's key: the ids of all its tags, 1032 for one that is not the owner's)",
        params: fileParams,
        body: z.object({
          name: z.string().min(1).max(1024).optional(),
          originalName: z.string().max(255).nullable().optional(),
          favorite: z.boolean().optional(),
          password: z.string().max(1024).nullable().optional(),
          maxViews: z.number().int().min(0).max(2_147_483_647).nullable().optional(),
          type: z.string().min(1).max(255).optional(),
          deletesAt: IsoDateTime.nullable().optional(),
          private: z.boolean().optional(),
          tags: z.array(Id).max(100).optional(),
        }),
        response: { 200: FileSchema },
      },
    },
    async (request) => {
      const { deletesAt, tags, ...patch } = request.body;
      const row = await updateFileAndTags(
        ctx,
        caller(request).user,
        request.params.id,
        {
          ...patch,
          ...(deletesAt === undefined ? {} : { deletesAt: deletesAt === null ? null : Date.parse(deletesAt) }),
        },
        tags,
      );
      return (await toFileDtos(ctx, publicBaseUrl(ctx, request), [row]))[0]!;
    },
  );

  app.get(
    '/files/:id/raw',
    {
      schema: {
        tags,
        summary:
          "The bytes of one of the caller's files for previews and downloads: no view counted, no password asked",
        description:
          'Ranges are answered (206); ?download serves it as an attachment. The dashboard uses this for ' +
          "thumbnails, so that looking at one's own files neither counts views nor uses up a file with max views.",
        params: fileParams,
        querystring: z.object({ download: z.string().optional().describe('present: serve as an attachment') }),
      },
    },
    async (request, reply) => {
      const bytes = bytesRequestOf(request, request.query.download !== undefined);
      return sendPlannedBytes(reply, await ownBytesPlan(ctx, caller(request).user, request.params.id, bytes));
    },
  );

  app.get(
    '/files/:id/thumbnail',
    {
      schema: {
        tags,
        summary:
          "The WebP thumbnail of one of the caller's images or videos (404/4000 until the background job made it)",
        params: fileParams,
      },
    },
    async (request, reply) => {
      const thumbnail = await openOwnThumbnail(ctx, caller(request).user, request.params.id);
      return sendThumbnail(request, reply, thumbnail, 'private, max-age=3600');
    },
  );

  app.delete(
    '/files/:id',
    { schema: { tags, summary: 'Delete a file and its bytes', params: fileParams, response: { 200: FileSchema } } },
    async (request) =>
      toFileDto(ctx, publicBaseUrl(ctx, request), await deleteFile(ctx, caller(request).user, request.params.id)),
  );
};

/** Under /api/user, with the caller resolved when signed in (owners and admins need no password). */
export const fileUnlockRoutes: RouteModule = (app, ctx) => {
  app.post(
    '/files/:id/password',
    {
      schema: {
        summary: "Trade a protected file's password for a short-lived access token (?token= on /raw and /u)",
        description:
          'Anyone with the link may call this. The owner and admins get a token without the password. Wrong password -> 403/3005.',
        tags,
        params: fileParams,
        body: z.object({ password: z.string().max(1024).optional() }),
        response: {
          200: z.object({
            success: z.literal(true).describe("Zipline's answer"),
            token: z.string(),
            expiresAt: IsoDateTime,
            url: z.string(),
          }),
        },
      },
    },
    async (request) => {
      const unlocked = await unlockFile(
        ctx,
        request.params.id,
        request.body.password,
        request.auth?.user ?? null,
        passwordGuessGuard(request, 'file'),
      );
      const base = publicBaseUrl(ctx, request);
      return {
        success: true as const,
        token: unlocked.token,
        expiresAt: new Date(unlocked.expiresAt).toISOString(),
        url: rawLink(base, unlocked.name, { token: unlocked.token }),
      };
    },
  );
};
