// /api/upload/tus: resumable uploads by the tus 1.0 protocol (core, creation, creation-with-upload, expiration,
// checksum with sha1 and sha256, termination), next to the chunked protocol of POST /api/upload/partial. Every request
// but OPTIONS is authenticated like the rest of the API; creating an upload counts against the upload rate limit.
// The routes live in their own Fastify scope, where no content-type parser reads a body: the PATCH body
// (application/offset+octet-stream) reaches the tus handler as the untouched request stream (http/uploads/tus.ts).
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { registerRouteGroups } from '../../http/auth.js';
import { uploadRateLimit } from '../../http/rate-limit.js';
import { createTusServer, handleTusRequest } from '../../http/uploads/tus.js';
import type { RouteModule } from '../../http/types.js';

const tusHeaders = z.object({
  'tus-resumable': z.string().optional().describe('1.0.0 on every request but OPTIONS'),
  'upload-length': z.string().optional().describe('creation: the size of the whole file in bytes'),
  'upload-metadata': z
    .string()
    .optional()
    .describe(
      'creation: comma-separated "key base64(value)" pairs: filename, filetype, and any upload option under its ' +
        'header name (x-service-folder, x-service-deletes-at, ...)',
    ),
  'upload-offset': z.string().optional().describe('PATCH: where the body starts; must be the current offset'),
  'upload-checksum': z.string().optional().describe('PATCH: "sha1 <base64>" or "sha256 <base64>" of the body'),
});

const DESCRIPTION =
  'tus 1.0 (https://tus.io/protocols/resumable-upload): POST creates an upload (Location names it), PATCH appends ' +
  '(Content-Type application/offset+octet-stream), HEAD answers the offset, DELETE terminates. The last PATCH answers ' +
  'the file in Chute-File-Id, Chute-File-Url and Chute-File-Raw-Url (HEAD too, afterwards). Errors use the spec ' +
  'shape with the tus status (409 offset, 460 checksum mismatch, 413 with 5001 or 5002).';

/**
 * Under /api/upload/tus (TUS_PATH), for anyone: OPTIONS, which tus clients ask before anything else; the rest is in a
 * group of its own for a signed-in user, inside the same scope without body parsers.
 */
export const uploadTusRoutes: RouteModule = async (app, ctx) => {
  const tus = createTusServer(ctx);
  const limit = uploadRateLimit(ctx);
  // Only creating an upload counts against the upload limit, like the first chunk of a chunked upload.
  const rateLimit = {
    ...limit,
    allowList: (request: FastifyRequest) => request.method !== 'POST' || limit.allowList(request),
  };

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.addHook('onSend', async (_request, reply) => {
      reply.header('tus-resumable', '1.0.0');
    });

    scope.route({
      method: 'OPTIONS',
      url: '',
      schema: { tags: ['files'], summary: 'tus: the versions, extensions and limits served', description: DESCRIPTION },
      handler: (request, reply) => handleTusRequest(ctx, tus, request, reply),
    });
    scope.route({
      method: 'OPTIONS',
      url: '/:id',
      schema: { hide: true },
      handler: (request, reply) => handleTusRequest(ctx, tus, request, reply),
    });

    const common = {
      config: { rateLimit },
      schema: { tags: ['files'], headers: tusHeaders, description: DESCRIPTION },
    };
    const tusUploadRoutes: RouteModule = (signedIn) => {
      signedIn.route({
        ...common,
        method: 'POST',
        url: '',
        schema: { ...common.schema, summary: 'tus: create an upload (with its first bytes, optionally)' },
        handler: (request, reply) => handleTusRequest(ctx, tus, request, reply),
      });
      signedIn.route({
        ...common,
        method: ['HEAD', 'PATCH', 'DELETE'],
        url: '/:id',
        schema: {
          ...common.schema,
          params: z.object({ id: z.string() }),
          summary: 'tus: the offset (HEAD), append (PATCH), terminate (DELETE)',
        },
        handler: (request, reply) => handleTusRequest(ctx, tus, request, reply),
      });
    };
    await registerRouteGroups(scope, ctx, [{ prefix: '', access: 'user', routes: [tusUploadRoutes] }]);
  });
};
