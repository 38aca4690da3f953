// The answers of chunked uploads (POST /api/upload/partial) and the incomplete-file records that report how the
// assembly of a finished chunked upload went (GET /api/user/files/incomplete).
import { z } from 'zod';
import { IsoDateTime } from './common.js';

export const PartialChunkResponseSchema = z
  .object({
    files: z.array(z.never()).describe('always empty: the file is not complete yet'),
    partialSuccess: z.literal(true),
    partialToken: z.string().describe('send it as x-service-p-token with the next chunk; single use, valid 30 minutes'),
  })
  .meta({ id: 'PartialChunkResponse' });

export type PartialChunkResponse = z.infer<typeof PartialChunkResponseSchema>;

export const PendingFileSchema = z
  .object({
    name: z.string().describe('the served name the file will have'),
    type: z.string(),
    size: z.number().int(),
    url: z.string().describe('the share link, working once the assembly is COMPLETE'),
    rawUrl: z.string(),
    originalName: z.string().nullable(),
    deletesAt: IsoDateTime.nullable(),
    pending: z.literal(true).describe('the file is assembled in the background'),
  })
  .meta({ id: 'PendingFile' });

export const FinalChunkResponseSchema = z
  .object({
    files: z.array(PendingFileSchema).length(1),
    partialSuccess: z.literal(false),
    incompleteFileId: z.string().describe('follow the assembly in GET /api/user/files/incomplete'),
    deletesAt: IsoDateTime.optional(),
    assumedMimetypes: z.array(z.boolean()),
  })
  .meta({ id: 'FinalChunkResponse' });

export type FinalChunkResponse = z.infer<typeof FinalChunkResponseSchema>;

export const IncompleteFileStatusSchema = z.enum(['PENDING', 'PROCESSING', 'COMPLETE', 'FAILED']);

export const IncompleteFileSchema = z
  .object({
    id: z.string(),
    status: IncompleteFileStatusSchema,
    chunksTotal: z.number().int().describe('chunks the file was uploaded in'),
    chunksComplete: z.number().int().describe('chunks durable in the finished file (all of them once COMPLETE)'),
    fileId: z.string().nullable().describe('the file, once COMPLETE'),
    userId: z.string(),
    metadata: z.object({
      name: z.string().describe('served name'),
      type: z.string(),
      size: z.number().int(),
      url: z.string().nullable(),
      error: z.string().optional().describe('why the assembly FAILED'),
    }),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  })
  .meta({ id: 'IncompleteFile' });

export type IncompleteFileDto = z.infer<typeof IncompleteFileSchema>;
