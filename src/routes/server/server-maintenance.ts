// Zipline's maintenance routes for admins: clear the temp folder, list or delete the zero-byte files, and read the
// files' sizes from the datasource again. Each answers a sentence in `status` (clear_zeros GET: the files).
import { z } from 'zod';
import type { RouteModule } from '../../http/types.js';
import { clearTemp, clearZeroByteFiles, requerySizes, zeroByteFiles } from '../../services/operations/maintenance.js';

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
};
