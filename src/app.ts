// buildApp(): the Fastify application with its plugins, error handling and routes. No side effects at import time;
// tests build as many as they like, each with its own context.
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import Fastify, { LogController, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from './context.js';
import { registerApiHeaders } from './http/api-headers.js';
import { registerDashboard } from './http/dashboard.js';
import { registerErrorHandlers } from './http/errors.js';
import { rewritePublicPrefixes } from './http/links.js';
import { registerOpenApi } from './http/openapi.js';
import { registerRateLimit } from './http/rate-limit.js';
import { strictBodyValidatorCompiler } from './http/strict-bodies.js';
import type { App, RouteModule } from './http/types.js';
import { authRoutes } from './routes/auth.js';
import { oauthRoutes } from './routes/oauth.js';
import { authWebauthnRoutes } from './routes/auth-webauthn.js';
import { fileServingRoutes } from './routes/files.js';
import { folderRoutes } from './routes/folders.js';
import { healthcheckRoutes } from './routes/healthcheck.js';
import { incompleteFilesRoutes } from './routes/incomplete-files.js';
import { invitesRoutes } from './routes/invites.js';
import { publicFolderRoutes } from './routes/public-folders.js';
import { redirectRoutes } from './routes/redirect.js';
import { registerRoutes } from './routes/register.js';
import { serverSettingsRoutes } from './routes/server-settings.js';
import { serverStatsRoutes } from './routes/server-stats.js';
import { setupRoutes } from './routes/setup.js';
import { tagRoutes } from './routes/tags.js';
import { uploadPartialRoutes } from './routes/upload-partial.js';
import { uploadRoutes } from './routes/upload.js';
import { urlRoutes } from './routes/urls.js';
import { userAvatarRoutes } from './routes/user-avatar.js';
import { userFilesRoutes } from './routes/user-files.js';
import { userMfaPasskeyRoutes } from './routes/user-mfa-passkey.js';
import { userMfaTotpRoutes } from './routes/user-mfa-totp.js';
import { userRoutes } from './routes/user.js';
import { userTokenRoutes } from './routes/user-tokens.js';
import { usersRoutes } from './routes/users.js';

/** Every route module, grouped by area. */
const ROUTES: RouteModule[] = [
  // server and accounts
  healthcheckRoutes,
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
  // files: uploads (single request and chunked), serving, management
  uploadRoutes,
  uploadPartialRoutes,
  incompleteFilesRoutes,
  fileServingRoutes,
  userFilesRoutes,
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
    // Uploads can take long; the server must not cut a slow client mid-file. Idle sockets still time out.
    requestTimeout: 0,
    connectionTimeout: 0,
    keepAliveTimeout: 72_000,
    return503OnClosing: true,
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
  registerApiHeaders(app);
  await registerOpenApi(app);
  await app.register(cookie);
  await app.register(multipart, { throwFileSizeLimit: true });
  await registerRateLimit(app, fullCtx);

  for (const routes of ROUTES) await routes(app, fullCtx);
  // The web dashboard's pages and assets (web/, built into web/dist).
  await registerDashboard(app, fullCtx);
  return { app, ctx: fullCtx };
}
