// Zipline's maintenance routes for admins: clear the temp folder, list or delete the zero-byte files, and read the
// files' sizes from the datasource again; and Chute's own, the orphaned files (bytes kept by a bulk delete with
// delete_datasourceFiles false). Each answers a sentence in `status` (the GETs: what DELETE would remove).
import { z } from 'zod';
import type { RouteModule } from '../../http/types.js';
import { toIso } from '../../lib/clock.js';
import { IsoDateTime } from '../../schemas/common.js';
import {
  clearOrphanedFiles,
  clearTemp,
  clearZeroByteFiles,
  orphanedFiles,
  requerySizes,
  zeroByteFiles,
} from '../../services/operations/maintenance.js';

const tags = ['server'];
const StatusSchema = z.object({ status: z.string().describe('what was done, in words') });

/** Under /api/server, for admins. */
export const serverMaintenanceRoutes: RouteModule = (app, ctx) => {
  app.delete(
    '/clear_temp',
    {
      schema: {
        tags,
        summary: 'Remove temp data no upload needs: chunked uploads idle past their timeout, files left by a crash',
        description:
          'Chunked uploads that may still continue keep their data; a temp file is removed once no request has ' +
          'written to it for an hour.',
        response: { 200: StatusSchema },
      },
    },
    async () => clearTemp(ctx),
  );

  app.get(
    '/clear_zeros',
    {
      schema: {
        tags,
        summary: 'The files of zero bytes (of every user), which DELETE removes',
        response: { 200: z.object({ files: z.array(z.object({ id: z.string(), name: z.string() })) }) },
      },
    },
    async () => ({ files: await zeroByteFiles(ctx) }),
  );

  app.delete(
    '/clear_zeros',
    {
      schema: {
        tags,
        summary: 'Delete every file of zero bytes, as a deletion by its owner would (record, bytes, usage)',
        response: { 200: StatusSchema },
      },
    },
    async () => clearZeroByteFiles(ctx),
  );

  app.post(
    '/requery_size',
    {
      schema: {
        tags,
        summary: "Read the files' sizes from the datasource again: those recorded with 0 bytes, or all (forceUpdate)",
        description:
          'A record whose bytes are missing from the datasource is reported, or deleted with forceDelete. The ' +
          'usage counters and quotas follow the corrected sizes.',
        body: z
          .object({
            forceDelete: z.boolean().optional().describe('delete the records whose bytes are missing'),
            forceUpdate: z.boolean().optional().describe('re-read every file, not only the zero-byte ones'),
          })
          .nullish(),
        response: { 200: StatusSchema },
      },
    },
    async (request) =>
      requerySizes(ctx, {
        forceDelete: request.body?.forceDelete === true,
        forceUpdate: request.body?.forceUpdate === true,
      }),
  );

  app.get(
    '/orphaned_files',
    {
      schema: {
        tags,
        summary: 'Bytes that no file record refers to any more, which DELETE removes',
        description:
          'The bytes that DELETE /api/user/files/transaction with delete_datasourceFiles false left in storage ' +
          '(at most 1000 per answer, oldest first): their storage key, their size (null when they are gone from ' +
          'the datasource) and when their record was deleted.',
        response: {
          200: z.object({
            files: z.array(z.object({ key: z.string(), size: z.number().int().nullable(), deletedAt: IsoDateTime })),
          }),
        },
      },
    },
    async () => ({
      files: (await orphanedFiles(ctx)).map((f) => ({
        key: f.key,
        size: f.size,
        deletedAt: toIso(f.notedAt),
      })),
    }),
  );

  app.delete(
    '/orphaned_files',
    {
      schema: {
        tags,
        summary: 'Remove the bytes that no file record refers to any more (those GET lists)',
        response: { 200: StatusSchema },
      },
    },
    async () => clearOrphanedFiles(ctx),
  );
};
