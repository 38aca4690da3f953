// The caller's exports of their account (Zipline's /api/user/export): start one (a background job zips all their
// files and a JSON of their records), list them, download a finished one, delete one.
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { caller } from '../../http/auth.js';
import type { RouteModule } from '../../http/types.js';
import { contentDisposition } from '../../lib/formats/content-disposition.js';
import { ApiError } from '../../lib/errors.js';
import { Id } from '../../schemas/common.js';
import { ExportSchema } from '../../schemas/export.js';
import { toExportDto } from '../../services/exports/dto.js';
import {
  deleteUserExport,
  listUserExports,
  openUserExport,
  startUserExport,
} from '../../services/exports/user-exports.js';

const tags = ['user'];
const ExportQuery = z.object({ id: Id.optional().describe('the export to download (GET) or delete (DELETE)') });

/** Under /api/user, for a signed-in user. */
export const userExportRoutes: RouteModule = (app, ctx) => {
  app.post(
    '/export',
    {
      schema: {
        tags,
        summary: 'Start an export: a zip of all your files and a JSON of your records, made in the background',
        description:
          'Answers at once; the export appears in GET /api/user/export and can be downloaded once completed. It is ' +
          'kept for 7 days. 1025 when you have no files.',
        response: { 200: z.object({ running: z.literal(true), export: ExportSchema }) },
      },
    },
    async (request) => {
      const { user } = caller(request);
      const row = await startUserExport(ctx, user);
      return { running: true as const, export: toExportDto(row, user.username) };
    },
  );

  app.get(
    '/export',
    {
      schema: {
        tags,
        summary: 'Your exports (newest first), or with ?id= the zip of one',
        description: 'With ?id=: the zip (application/zip); 1024 while it is not completed, 9002 for no such export.',
        querystring: ExportQuery,
        response: { 200: z.array(ExportSchema) },
      },
    },
    async (request, reply) => {
      const { id: userId, username } = caller(request).user;
      const id = request.query.id;
      if (id === undefined) return (await listUserExports(ctx, userId)).map((row) => toExportDto(row, username));
      const { row, stream } = await openUserExport(ctx, userId, id);
      // A zip, not the list: the reply is sent untyped (Fastify streams it without the response schema).
      return (reply as FastifyReply)
        .header('content-type', 'application/zip')
        .header('content-length', String(row.size))
        .header('content-disposition', contentDisposition('attachment', toExportDto(row, username).path))
        .header('cache-control', 'no-store')
        .send(stream);
    },
  );

  app.delete(
    '/export',
    {
      schema: {
        tags,
        summary: 'Delete an export and its zip (1029 without ?id=, 9002 for no such export)',
        querystring: ExportQuery,
        response: { 200: z.object({ deleted: z.literal(true) }) },
      },
    },
    async (request) => {
      if (request.query.id === undefined) throw new ApiError(1029);
      await deleteUserExport(ctx, caller(request).user.id, request.query.id);
      return { deleted: true as const };
    },
  );
};
