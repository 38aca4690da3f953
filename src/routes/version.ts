// GET /api/version: the version of the running server.
import { z } from 'zod';
import { requireUser } from '../http/auth.js';
import { guardedRoute } from '../http/openapi.js';
import type { RouteModule } from '../http/types.js';
import { runningVersion } from '../services/version.js';

export const versionRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/api/version',
    guardedRoute(requireUser(ctx), ['server'])({
      summary: 'The version of the running server',
      response: { 200: z.object({ version: z.string().describe("Chute's version, e.g. 0.1.0") }) },
    }),
    () => ({ version: runningVersion() }),
  );
};
