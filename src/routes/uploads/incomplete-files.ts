// GET / DELETE /api/user/files/incomplete: the caller's chunked uploads being (or done being) assembled.
import { z } from 'zod';
import { caller } from '../../http/auth.js';
import type { RouteModule } from '../../http/types.js';
import { Id } from '../../schemas/common.js';
import { IncompleteFileSchema } from '../../schemas/chunked-upload.js';
import { deleteFinishedIncompleteFiles, listIncompleteFiles } from '../../services/uploads/incomplete-files.js';

const tags = ['files'];

/** Under /api/user, for a signed-in user. */
export const incompleteFilesRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/files/incomplete',
    {
      schema: {
        tags,
        summary: "The caller's chunked uploads being assembled, newest first",
        description: 'status: PENDING, PROCESSING, COMPLETE (fileId is the file) or FAILED (metadata.error says why).',
        response: { 200: z.array(IncompleteFileSchema) },
      },
    },
    async (request) => listIncompleteFiles(ctx, caller(request).user.id),
  );

  app.delete(
    '/files/incomplete',
    {
      schema: {
        tags,
        summary: "Removes the caller's finished (COMPLETE or FAILED) records: the listed ones, or all",
        body: z.object({ id: z.array(Id).max(1000).optional() }).nullish(),
        response: { 200: z.object({ count: z.number().int() }) },
      },
    },
    async (request) => ({
      count: await deleteFinishedIncompleteFiles(ctx, caller(request).user.id, request.body?.id ?? undefined),
    }),
  );
};
