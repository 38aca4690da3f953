// Rate limiting: counters in memory for one instance, or in Redis (REDIS_URL) so that limits hold across several
// instances behind a load balancer. Routes opt in with `config.rateLimit`; limits answer in the spec's error shape.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { AppContext } from '../context.js';
import { ApiError } from '../lib/errors.js';

export async function registerRateLimit(app: FastifyInstance, ctx: AppContext): Promise<void> {
  let redis: Redis | undefined;
  if (ctx.config.REDIS_URL) {
    redis = new Redis(ctx.config.REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false });
    app.addHook('onClose', async () => {
      await redis?.quit().catch(() => undefined);
    });
  }
  await app.register(rateLimit, {
    global: false,
    ...(redis ? { redis, nameSpace: `${ctx.config.REDIS_PREFIX}ratelimit:` } : {}),
    errorResponseBuilder: (_request, context) =>
      new ApiError(9000, `too many requests, retry in ${context.after}`, { status: 429 }),
  });
}

/** Whether the upload/login limits apply to this request at all (off in settings, or an admin with bypass on). */
export function rateLimitExempt(ctx: AppContext, request: FastifyRequest): boolean {
  const settings = ctx.settings.get();
  if (!settings.ratelimitEnabled) return true;
  return settings.ratelimitAdminBypass && request.auth !== null && request.auth?.user.role !== 'USER';
}

/**
 * Route config for the upload limit: `settings.ratelimitMax` per `settings.ratelimitWindow` seconds per user
 * (or per address for anonymous callers), checked after authentication.
 */
export function uploadRateLimit(ctx: AppContext) {
  return {
    hook: 'preHandler' as const,
    groupId: 'upload',
    max: async () => ctx.settings.get().ratelimitMax,
    timeWindow: async () => ctx.settings.get().ratelimitWindow * 1000,
    keyGenerator: (request: FastifyRequest) => (request.auth ? `user:${request.auth.user.id}` : `ip:${request.ip}`),
    allowList: (request: FastifyRequest) => rateLimitExempt(ctx, request),
  };
}

/** Route config for login attempts: 10 a minute per address, whatever the settings say about uploads. */
export function loginRateLimit(ctx: AppContext) {
  return attemptsRateLimit(ctx, 'login');
}

type LimitHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
const loginAttemptHooks = new WeakMap<AppContext, LimitHook>();

/**
 * An onRequest hook counting against one budget of login attempts (10 a minute per address) shared by every route
 * it is put on: the password login with its code step, passkey logins, and the routes that check a TOTP or
 * recovery code. (A route's own `config.rateLimit` gets its own in-memory counter, even with the same groupId.)
 */
export function loginAttemptsLimit(app: FastifyInstance, ctx: AppContext): LimitHook {
  let hook = loginAttemptHooks.get(ctx);
  if (!hook) {
    // The same key as routes with `config.rateLimit: loginRateLimit(ctx)` (address + group), so that in Redis, where
    // counters are shared by key, registration and setup attempts still count with logins.
    hook = app.rateLimit({ ...loginRateLimit(ctx), keyGenerator: (request) => `${request.ip}login` }) as LimitHook;
    loginAttemptHooks.set(ctx, hook);
  }
  return hook;
}

/** Route config for trading a password for access (files, short URLs): 10 attempts a minute per address. */
export function unlockRateLimit(ctx: AppContext, groupId: 'file-password' | 'url-password') {
  return attemptsRateLimit(ctx, groupId);
}

/** Guesses of a secret (passwords, codes): 10 a minute per address, counted per group. */
function attemptsRateLimit(ctx: AppContext, groupId: string) {
  return {
    groupId,
    max: 10,
    timeWindow: 60_000,
    allowList: () => !ctx.settings.get().ratelimitEnabled,
  };
}
