// buildApp(): the Fastify application with its plugins, error handling and routes. No side effects at import time;
// tests build as many as they like, each with its own context.
import cookie from '@fastify/cookie';
import Fastify, { LogController, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from './context.js';
import { registerApiHeaders } from './http/api-headers.js';
import { registerDashboard } from './http/dashboard.js';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandlers } from './http/errors.js';
import { registerInFlightHandlers } from './http/in-flight.js';
import { rewritePublicPrefixes } from './http/links.js';
import { registerOpenApi } from './http/openapi.js';
import { registerRateLimit } from './http/rate-limit.js';
import { registerRequestMetrics } from './http/request-metrics.js';
import { registerRequestTimeouts } from './http/slow-requests.js';
import { registerWellFormedText } from './http/well-formed-text.js';
import { strictBodyValidatorCompiler } from './http/strict-bodies.js';
import { acceptMultipartBodies } from './http/uploads/multipart.js';
import type { App, AreaPlugin } from './http/types.js';
import { accountsArea } from './routes/accounts/index.js';
import { filesArea } from './routes/files/index.js';
import { linksArea } from './routes/links/index.js';
import { organiseArea } from './routes/organise/index.js';
import { serverArea } from './routes/server/index.js';
import { uploadsArea } from './routes/uploads/index.js';

/**
 * The areas of the API, each an encapsulated plugin of route groups (a prefix and who may call, http/auth.ts):
 * server and accounts, uploads, files, short URLs, folders and tags.
 */
const AREAS: AreaPlugin[] = [serverArea, accountsArea, uploadsArea, filesArea, linksArea, organiseArea];

export interface BuildAppOptions {
  logger: FastifyServerOptions['logger'];
}

export async function buildApp(
  ctx: Omit<AppContext, 'log'>,
  options: BuildAppOptions,
): Promise<{ app: App; ctx: AppContext }> {
  const proxies = ctx.config.TRUST_PROXY;
  const app = Fastify({
    logger: options.logger,
    rewriteUrl: (request) => rewritePublicPrefixes(ctx, request.url ?? '/'),
    // A hop count as Fastify itself compiles it (its types take no number): the nearest `proxies` hops are trusted.
    trustProxy: typeof proxies === 'number' ? (_address: string, hop: number) => hop < proxies : proxies,
    bodyLimit: ctx.config.JSON_BODY_LIMIT,
    // Uploads can take long: no bound on a whole request. A connection silent for REQUEST_IDLE_TIMEOUT seconds in the
    // middle of a request is ended, and other bodies have REQUEST_BODY_TIMEOUT (http/slow-requests.ts).
    requestTimeout: 0,
    connectionTimeout: ctx.config.REQUEST_IDLE_TIMEOUT * 1000,
    keepAliveTimeout: 72_000,
    return503OnClosing: true,
    // Errors found before routing (a bad percent-escape, an over-long path parameter) and by Node's HTTP parser
    // (oversized headers, malformed requests) answer in the spec's error shape too.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // One log line per request only when debugging: uploads and downloads are the hot path.
    logController: new LogController({
      disableRequestLogging: ctx.config.LOG_LEVEL !== 'debug' && ctx.config.LOG_LEVEL !== 'trace',
    }),
  }).withTypeProvider<ZodTypeProvider>();

  const fullCtx: AppContext = { ...ctx, log: app.log };

  app.setValidatorCompiler(strictBodyValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('auth', null);
  registerErrorHandlers(app);
  // Before any route: a stopping server waits for the handlers still running (server.ts).
  registerInFlightHandlers(app);
  registerApiHeaders(app);
  // Before any route: each route gets its own request-metrics hook (/metrics).
  registerRequestMetrics(app, ctx.metrics);
  registerRequestTimeouts(app, {
    idleMs: ctx.config.REQUEST_IDLE_TIMEOUT * 1000,
    bodyMs: ctx.config.REQUEST_BODY_TIMEOUT * 1000,
  });
  registerWellFormedText(app);
  await registerOpenApi(app);
  await app.register(cookie);
  acceptMultipartBodies(app);
  await registerRateLimit(app, fullCtx);

  // After every hook and decorator above, which the areas' encapsulated plugins inherit (the onRoute hooks of
  // openapi.ts, in-flight.ts and request-metrics.ts see their routes too).
  for (const area of AREAS) await app.register(area, { ctx: fullCtx });
  // The web dashboard's pages and assets (web/, built into web/dist).
  await registerDashboard(app, fullCtx);
  return { app, ctx: fullCtx };
}
