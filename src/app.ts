// buildApp(): the Fastify application with its plugins, error handling and routes. No side effects at import time;
// tests build as many as they like, each with its own context.
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
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
import type { App, RouteModule } from './http/types.js';
import { authRoutes } from './routes/accounts/auth.js';
import { oauthRoutes } from './routes/accounts/oauth.js';
import { authWebauthnRoutes } from './routes/accounts/auth-webauthn.js';
import { fileServingRoutes } from './routes/files/files.js';
import { fileShareRoutes } from './routes/files/file-shares.js';
import { folderRoutes } from './routes/organise/folders.js';
import { healthcheckRoutes } from './routes/server/healthcheck.js';
import { readinessRoutes } from './routes/server/readiness.js';
import { incompleteFilesRoutes } from './routes/uploads/incomplete-files.js';
import { invitesRoutes } from './routes/accounts/invites.js';
import { publicFolderRoutes } from './routes/organise/public-folders.js';
import { redirectRoutes } from './routes/links/redirect.js';
import { registerRoutes } from './routes/accounts/register.js';
import { serverSettingsRoutes } from './routes/server/server-settings.js';
import { serverExportRoutes } from './routes/server/server-export.js';
import { serverJobsRoutes } from './routes/server/server-jobs.js';
import { serverMaintenanceRoutes } from './routes/server/server-maintenance.js';
import { serverStatsRoutes } from './routes/server/server-stats.js';
import { statsRoutes } from './routes/server/stats.js';
import { metricsRoutes } from './routes/server/metrics.js';
import { setupRoutes } from './routes/accounts/setup.js';
import { shareRoutes } from './routes/files/shares.js';
import { siteFileRoutes } from './routes/server/site-files.js';
import { tagRoutes } from './routes/organise/tags.js';
import { uploadPartialRoutes } from './routes/uploads/upload-partial.js';
import { uploadTusRoutes } from './routes/uploads/upload-tus.js';
import { uploadRoutes } from './routes/uploads/upload.js';
import { urlRoutes } from './routes/links/urls.js';
import { userAvatarRoutes } from './routes/accounts/user-avatar.js';
import { userExportRoutes } from './routes/accounts/user-exports.js';
import { userFilesRoutes } from './routes/files/user-files.js';
import { userMfaPasskeyRoutes } from './routes/accounts/user-mfa-passkey.js';
import { userMfaTotpRoutes } from './routes/accounts/user-mfa-totp.js';
import { userRoutes } from './routes/accounts/user.js';
import { userTokenRoutes } from './routes/accounts/user-tokens.js';
import { usersRoutes } from './routes/accounts/users.js';
import { versionRoutes } from './routes/server/version.js';

/** Every route module, grouped by area. */
const ROUTES: RouteModule[] = [
  // server and accounts
  healthcheckRoutes,
  readinessRoutes,
  versionRoutes,
  setupRoutes,
  authRoutes,
  oauthRoutes,
  authWebauthnRoutes,
  registerRoutes,
  userRoutes,
  userTokenRoutes,
  userAvatarRoutes,
  userMfaTotpRoutes,
  userMfaPasskeyRoutes,
  userExportRoutes,
  // files: uploads (single request, chunked and tus), serving, management
  uploadRoutes,
  uploadPartialRoutes,
  uploadTusRoutes,
  incompleteFilesRoutes,
  fileServingRoutes,
  userFilesRoutes,
  fileShareRoutes,
  shareRoutes,
  // short URLs, folders, tags
  urlRoutes,
  redirectRoutes,
  folderRoutes,
  publicFolderRoutes,
  tagRoutes,
  // administration
  usersRoutes,
  invitesRoutes,
  serverSettingsRoutes,
  serverStatsRoutes,
  serverJobsRoutes,
  serverMaintenanceRoutes,
  // statistics: the snapshots' series and the Prometheus scrape
  statsRoutes,
  metricsRoutes,
  serverExportRoutes,
  // robots.txt, the web manifest, favicons, Zipline's invite links
  siteFileRoutes,
];

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
  await app.register(multipart, { throwFileSizeLimit: true });
  await registerRateLimit(app, fullCtx);

  for (const routes of ROUTES) await routes(app, fullCtx);
  // The web dashboard's pages and assets (web/, built into web/dist).
  await registerDashboard(app, fullCtx);
  return { app, ctx: fullCtx };
}
