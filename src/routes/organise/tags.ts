// The caller's tags (create, list, read, rename/recolour, delete) and the tags on the caller's files.
import { z } from 'zod';
import { caller } from '../../http/auth.js';
import type { RouteModule } from '../../http/types.js';
import { Id } from '../../schemas/common.js';
import { FileTagSchema } from '../../schemas/file.js';
import { TagColorSchema, TagNameSchema, TagSchema } from '../../schemas/tag.js';
import {
  createTag,
  deleteTag,
  getOwnTag,
  listTags,
  removeFileTag,
  setFileTags,
  tagsOfFile,
  updateTag,
} from '../../services/organise/tags.js';
import { toTagDto } from '../../services/organise/dto.js';

const tags = ['tags'];
const TagIdParams = z.object({ id: Id });
const FileIdParams = z.object({ id: Id });
const FileTagParams = z.object({ id: Id, tagId: Id });
const FileTagsReply = z.object({ tags: z.array(FileTagSchema) });

/** Under /api/user, for a signed-in user. */
export const tagRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/tags',
    { schema: { tags, summary: "The caller's tags, by name", response: { 200: z.array(TagSchema) } } },
    async (request) => (await listTags(ctx, caller(request).user.id)).map(toTagDto),
  );

  app.post(
    '/tags',
    {
      schema: {
        tags,
        summary: 'Create a tag (1033 when the caller already has one of that name)',
        body: z.object({ name: TagNameSchema, color: TagColorSchema.optional() }),
        response: { 200: TagSchema },
      },
    },
    async (request) => toTagDto(await createTag(ctx, caller(request).user.id, request.body)),
  );

  app.get(
    '/tags/:id',
    { schema: { tags, summary: "One of the caller's tags", params: TagIdParams, response: { 200: TagSchema } } },
    async (request) => toTagDto(await getOwnTag(ctx, caller(request).user.id, request.params.id)),
  );

  app.patch(
    '/tags/:id',
    {
      schema: {
        tags,
        summary: 'Rename or recolour a tag (1034 when the new name is taken)',
        params: TagIdParams,
        body: z.object({ name: TagNameSchema.optional(), color: TagColorSchema.optional() }),
        response: { 200: TagSchema },
      },
    },
    async (request) => toTagDto(await updateTag(ctx, caller(request).user.id, request.params.id, request.body)),
  );

  app.delete(
    '/tags/:id',
    {
      schema: {
        tags,
        summary: 'Delete a tag (files keep existing, untagged); answers the tag and, as Zipline, success: true',
        params: TagIdParams,
        response: { 200: TagSchema.extend({ success: z.literal(true) }) },
      },
    },
    async (request) => ({
      ...toTagDto(await deleteTag(ctx, caller(request).user.id, request.params.id)),
      success: true as const,
    }),
  );

  app.get(
    '/files/:id/tags',
    {
      schema: {
        tags,
        summary: "The tags of one of the caller's files",
        params: FileIdParams,
        response: { 200: FileTagsReply },
      },
    },
    async (request) => ({ tags: await tagsOfFile(ctx, caller(request).user.id, request.params.id) }),
  );

  app.put(
    '/files/:id/tags',
    {
      schema: {
        tags,
        summary: "Set the tags of one of the caller's files to exactly these (1032 for a tag that is not the caller's)",
        params: FileIdParams,
        body: z.object({ tags: z.array(Id).max(500) }),
        response: { 200: FileTagsReply },
      },
    },
    async (request) => ({
      tags: await setFileTags(ctx, caller(request).user.id, request.params.id, request.body.tags, 'replace'),
    }),
  );

  app.post(
    '/files/:id/tags/:tagId',
    {
      schema: {
        tags,
        summary: "Attach a tag to one of the caller's files",
        params: FileTagParams,
        response: { 200: FileTagsReply },
      },
    },
    async (request) => ({
      tags: await setFileTags(ctx, caller(request).user.id, request.params.id, [request.params.tagId], 'add'),
    }),
  );

  app.delete(
    '/files/:id/tags/:tagId',
    {
      schema: {
        tags,
        summary: "Detach a tag from one of the caller's files",
        params: FileTagParams,
        response: { 200: FileTagsReply },
      },
    },
    async (request) => ({
      tags: await removeFileTag(ctx, caller(request).user.id, request.params.id, request.params.tagId),
    }),
  );
};
