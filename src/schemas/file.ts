// The file resource as the API shows it, and the shapes of the upload and file-management answers.
import { z } from 'zod';
import { IsoDateTime } from './common.js';

export const FileTagSchema = z.object({ id: z.string(), name: z.string(), color: z.string() });
export type FileTagDto = z.infer<typeof FileTagSchema>;

export const FileSchema = z
  .object({
    id: z.string(),
    name: z.string().describe('the served name: <filesRoute>/<name>'),
    originalName: z.string().nullable().describe("the client's file name, when the upload kept it"),
    size: z.number().int(),
    type: z.string().describe('MIME type'),
    views: z.number().int(),
    maxViews: z.number().int().nullable(),
    favorite: z.boolean(),
    password: z.boolean().describe('whether the file is password protected'),
    private: z
      .boolean()
      .describe('served only to its owner and through share links; anyone else gets 404 under its plain links'),
    folderId: z.string().nullable(),
    userId: z.string().nullable(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    deletesAt: IsoDateTime.nullable(),
    url: z.string().describe('the share link'),
    thumbnail: z
      .object({
        path: z
          .string()
          .describe('/raw/<path> serves it when the file has no password; the owner: /api/user/files/<id>/thumbnail'),
      })
      .nullable()
      .describe('the WebP thumbnail of an image or video, once the background job made it'),
    tags: z.array(FileTagSchema),
  })
  .meta({ id: 'File' });

export type FileDto = z.infer<typeof FileSchema>;

export const UploadedFileSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.string(),
    size: z.number().int(),
    url: z.string().describe('the share link'),
    rawUrl: z.string().describe('the bytes themselves: /raw/<name>'),
    originalName: z.string().nullable(),
    deletesAt: IsoDateTime.nullable(),
    warnings: z
      .array(z.string())
      .optional()
      .describe('what the uploader should know of this file, in words: "empty file: it has 0 bytes"'),
    removedGps: z
      .boolean()
      .optional()
      .describe('true when the image was stored without its metadata (EXIF GPS position and the rest)'),
    compressed: z
      .object({
        mimetype: z.string(),
        ext: z.string().describe('with its dot, e.g. .webp'),
        failed: z.boolean().optional().describe('true when the image could not be read: it was stored as it came'),
      })
      .optional()
      .describe('present when compression was asked for: the stored type and extension'),
  })
  .meta({ id: 'UploadedFile' });

export type UploadedFileDto = z.infer<typeof UploadedFileSchema>;

export const UploadResponseSchema = z
  .object({
    files: z.array(UploadedFileSchema),
    deletesAt: IsoDateTime.optional().describe('when the files will be deleted, when they expire'),
    assumedMimetypes: z
      .array(z.boolean())
      .describe('per file: true when the type was guessed from the extension rather than sent by the client'),
  })
  .meta({ id: 'UploadResponse' });

export type UploadResponse = z.infer<typeof UploadResponseSchema>;

/** GET /api/user/stats: the caller's totals. */
export const FileStatsSchema = z
  .object({
    filesUploaded: z.number().int(),
    favoriteFiles: z.number().int(),
    views: z.number().int(),
    avgViews: z.number(),
    storageUsed: z.number().int(),
    avgStorageUsed: z.number(),
    urlsCreated: z.number().int(),
    urlViews: z.number().int(),
    sortTypeCount: z.record(z.string(), z.number().int()),
  })
  .meta({ id: 'FileStats' });

export type FileStatsDto = z.infer<typeof FileStatsSchema>;
