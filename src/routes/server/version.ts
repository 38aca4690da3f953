// GET /api/version: the version of the running server and, when the update check is on, the latest release.
import { z } from 'zod';
import type { RouteModule } from '../../http/types.js';
import { versionInfo } from '../../services/operations/version.js';

const UpdateSchema = z
  .object({
    latest: z.string().describe('the latest released version, e.g. 0.2.0'),
    url: z.string().nullable().describe("the release's page, when the feed names one"),
    available: z.boolean().describe('whether the latest release is newer than the running version'),
    checkedAt: z.string().describe('when the release feed was asked (ISO 8601)'),
    cached: z.boolean().describe('an answer of an earlier check (kept an hour)'),
  })
  .meta({ id: 'UpdateCheck' });

/** Under /api, for a signed-in user. */
export const versionRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/version',
    {
      schema: {
        tags: ['server'],
        summary: 'The version of the running server (and the latest release, when the update check is on)',
        description:
          'With the setting featuresVersionChecking on (off by default), the release feed at VERSION_CHECK_URL is ' +
          'asked for the latest release (a good answer is kept an hour); when it cannot be asked, or answers no ' +
          'version: 500/6001.',
        response: {
          200: z.object({
            version: z.string().describe("Chute's version, e.g. 0.1.0"),
            update: UpdateSchema.optional().describe('present when the update check is on'),
          }),
        },
      },
    },
    async () => versionInfo(ctx),
  );
};
