// GET / DELETE /api/user/files/incomplete: the caller's chunked uploads being (or done being) assembled.
import { z } from 'zod';
import { caller, requireUser } from '../../http/auth.js';
import { guardedRoute } from '../../http/openapi.js';
import type { RouteModule } from '../../http/types.js';
import { Id } from '../../schemas/common.js';
import { IncompleteFileSchema } from '../../schemas/partial-upload.js';
import { deleteFinishedIncompleteFiles, listIncompleteFiles } from '../../services/uploads/incomplete-files.js';

const tags = ['files'];

export const incompleteFilesRoutes: RouteModule = (app, ctx) => {
  const guarded = guardedRoute(requireUser(ctx), tags);

  app.get(
    '/api/user/files/incomplete',
    guarded({
      summary: "The caller's chunked uploads being assembled, newest first",
      description: 'status: PENDING, PROCESSING, COMPLETE (fileId is the file) or FAILED (metadata.error says why).',
      response: { 200: z.array(IncompleteFileSchema) },
    }),
    async (request) => listIncompleteFiles(ctx, caller(request).user.id),
  );

  app.delete(
    '/api/user/files/incomplete',
    guarded({
      summary: "Removes the caller's finished (COMPLETE or FAILED) records: the listed ones, or all",
      body: z.object({ id: z.array(Id).max(1000).optional() }).nullish(),
      response: { 200: z.object({ count: z.number().int() }) },
    }),
    async (request) => ({
      count: await deleteFinishedIncompleteFiles(ctx, caller(request).user.id, request.body?.id ?? undefined),
    }),
  );
};
