// The instance's records for a SUPERADMIN: the export in Zipline v4's format (GET /api/server/export) and the import
// of such an export, Chute's own or Zipline's (POST /api/server/import, and Zipline's /api/server/import/v4).
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { caller } from '../../http/auth.js';
import type { RouteModule } from '../../http/types.js';
import { contentDisposition } from '../../lib/formats/content-disposition.js';
import {
  Export4Schema,
  ExportCountsSchema,
  ImportConfigSchema,
  ImportResultSchema,
} from '../../schemas/zipline-export.js';
import { serverExport, serverExportCounts } from '../../services/exports/instance-export.js';
import { importServerExport } from '../../services/exports/instance-import.js';

const tags = ['server'];
/** An export holds every record of an instance: far more than other JSON bodies (JSON_BODY_LIMIT). */
export const IMPORT_BODY_LIMIT = 1024 ** 3;

/** Zipline's body of /api/server/import/v4. */
const ZiplineImportBody = z.object({
  export4: Export4Schema,
  config: ImportConfigSchema.optional(),
});

/** Under /api/server, for the SUPERADMIN. */
export const serverExportRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/export',
    {
      schema: {
        tags,
        summary: "Every record of the instance as JSON in Zipline v4's export format (no file bytes)",
        description:
          'A download (chute_export_<ms>.json), streamed. ?counts=true answers how many records of each kind instead. ' +
          '?nometrics is accepted (Chute keeps no metrics records: the list is always empty). 1023 when the settings ' +
          'record is missing; 3015 for an ADMIN.',
        querystring: z.object({
          counts: z.string().optional().describe('"true": only the number of records of each kind'),
          nometrics: z.string().optional().describe("leave out the metrics (Zipline's option)"),
        }),
        response: { 200: z.union([Export4Schema, ExportCountsSchema]) },
      },
    },
    async (request, reply) => {
      if (request.query.counts === 'true') return ExportCountsSchema.parse(await serverExportCounts(ctx));
      const text = await serverExport(ctx, caller(request).user);
      // Streamed text, not an object: sent untyped (Fastify sends a stream without the response schema).
      return (reply as FastifyReply)
        .header('content-type', 'application/json; charset=utf-8')
        .header('content-disposition', contentDisposition('attachment', `chute_export_${ctx.clock.now()}.json`))
        .header('cache-control', 'no-store')
        .send(Readable.from(text));
    },
  );

  app.post(
    '/import',
    {
      schema: {
        tags,
        summary: "Import an instance export: Chute's own (GET /api/server/export) or Zipline v4's",
        description:
          "The body is the export itself, or Zipline's {export4, config}. Users, quotas, sign-in providers, passkeys, " +
          "folders, files' records, tags, short URLs and invites are made in one transaction (an error leaves " +
          'nothing behind); records that clash with existing ones are skipped and listed. Files keep their storage ' +
          "key (Zipline's: the file name), so copying Zipline's uploads folder into UPLOADS_DIR makes /raw/<name> " +
          'serve them (docs/moving-from-zipline.md). 3015 for an ADMIN.',
        body: z.union([ZiplineImportBody, Export4Schema]),
        response: { 200: ImportResultSchema },
      },
      bodyLimit: IMPORT_BODY_LIMIT,
    },
    async (request) => {
      const body = request.body;
      const [exp, config] = 'export4' in body ? [body.export4, body.config] : [body, undefined];
      return importServerExport(ctx, caller(request).user, exp as z.infer<typeof Export4Schema>, config ?? {});
    },
  );

  app.post(
    '/import/v4',
    {
      schema: {
        tags,
        summary: "Zipline's name for POST /api/server/import, with its body {export4, config}",
        body: ZiplineImportBody,
        response: { 200: ImportResultSchema },
      },
      bodyLimit: IMPORT_BODY_LIMIT,
    },
    async (request) => importServerExport(ctx, caller(request).user, request.body.export4, request.body.config ?? {}),
  );
};
