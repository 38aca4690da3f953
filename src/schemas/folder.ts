// The folder resource as its owner sees it, and the public view anonymous visitors get of a public folder.
import { z } from 'zod';
import { IsoDateTime } from './common.js';
import { FileSchema } from './file.js';

export const FolderNameSchema = z.string().trim().min(1).max(255);

export const FolderSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    public: z.boolean().describe('anyone with the link may browse it (/folder/<id>) and download it as a zip'),
    allowUploads: z
      .boolean()
      .describe("anyone may upload into it; the files are the owner's and count against their quota"),
    parentId: z.string().nullable(),
    userId: z.string(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    fileCount: z.number().int(),
    childCount: z.number().int(),
  })
  .meta({ id: 'Folder' });

export const FolderCrumbSchema = z.object({ id: z.string(), name: z.string() });

/** `nextCursor` of a folder's answer: its files come a page at a time. */
const FolderFilesCursor = z
  .string()
  .nullable()
  .describe('pass as ?cursor= for the page of older files (keyset: none skipped or repeated); null on the last page');

export const FolderDetailSchema = FolderSchema.extend({
  files: z.array(FileSchema).describe("one page of the folder's files, newest first (fileCount: all of them)"),
  nextCursor: FolderFilesCursor,
  children: z.array(FolderSchema),
  parents: z.array(FolderCrumbSchema).describe('from the top-level folder down to the parent'),
}).meta({ id: 'FolderDetail' });

/** A file as anonymous visitors of a public folder see it: no owner, views or tags. */
export const PublicFolderFileSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    originalName: z.string().nullable(),
    type: z.string(),
    size: z.number().int(),
    createdAt: IsoDateTime,
    password: z.boolean().describe("the link asks for the file's password"),
    url: z.string(),
  })
  .meta({ id: 'PublicFolderFile' });

export const PublicFolderSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    allowUploads: z.boolean(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    parent: FolderCrumbSchema.nullable().describe('the parent folder, when it is public too'),
    files: z.array(PublicFolderFileSchema).describe("one page of the folder's files, newest first"),
    nextCursor: FolderFilesCursor,
    children: z.array(FolderCrumbSchema).describe('public child folders'),
    zipUrl: z.string(),
  })
  .meta({ id: 'PublicFolder' });

export type FolderDto = z.infer<typeof FolderSchema>;
export type FolderDetailDto = z.infer<typeof FolderDetailSchema>;
export type PublicFolderDto = z.infer<typeof PublicFolderSchema>;
export type PublicFolderFileDto = z.infer<typeof PublicFolderFileSchema>;
