// The OpenAPI 3.1 document, generated from the same zod schemas that validate and serialise, served at
// /api/openapi.json. Every route also gets the spec's error body for its 4xx and 5xx answers.
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { ErrorBodySchema } from '../schemas/error.js';

export const API_VERSION = '4.7.0';

/** The `security` of routes that need a caller: the API token or the session cookie. */
export const AUTHENTICATED: Array<Record<string, string[]>> = [{ token: [] }, { session: [] }];

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  // Added before any route is registered, so that every route documents (and serialises) errors the same way.
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ??= {});
    const response = ((schema as { response?: Record<string, unknown> }).response ??= {});
    response['4xx'] ??= ErrorBodySchema;
    response['5xx'] ??= ErrorBodySchema;
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Chute',
        description: 'Self-hosted file and URL sharing service',
        version: API_VERSION,
      },
      components: {
        securitySchemes: {
          token: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'the API token itself' },
          session: { type: 'apiKey', in: 'cookie', name: 'chute_session' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });

  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
