// Rate limiting: counters in memory for one instance, or in Redis (REDIS_URL) so that limits hold across several
// instances behind a load balancer. Routes opt in with `config.rateLimit`; limits answer in the spec's error shape.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { AppContext } from '../context.js';
import type { UserRow } from '../db/schema/tables.js';
import { ApiError } from '../lib/errors.js';
import { loadRedis } from '../lib/lazy-modules.js';

export async function registerRateLimit(app: FastifyInstance, ctx: AppContext): Promise<void> {
  let redis: Redis | undefined;
  if (ctx.config.REDIS_URL) {
    const Client = await loadRedis();
    redis = new Client(ctx.config.REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false });
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
  // One limiter (one store) for every password guess: its key names the file or URL and the address.
  app.decorate(
    'passwordGuessLimit',
    app.createRateLimit({
      max: PASSWORD_GUESSES_PER_MINUTE,
      timeWindow: 60_000,
      keyGenerator: (request) => guessKeys.get(request) ?? `password-guess:?:${request.ip}`,
      allowList: () => !ctx.settings.get().ratelimitEnabled,
    }),
  );
}

declare module 'fastify' {
  interface FastifyInstance {
    passwordGuessLimit: ReturnType<FastifyInstance['createRateLimit']>;
  }
}

/** The key of the guess a request is making, while passwordGuessLimit counts it. */
const guessKeys = new WeakMap<FastifyRequest, string>();

/** Whether the upload/login limits apply to this request at all (off in settings, or an admin with bypass on). */
export function rateLimitExempt(ctx: AppContext, request: FastifyRequest): boolean {
  return callerExempt(ctx, request.auth?.user ?? null);
}

/** Whether the upload limit spares `user` (null: an anonymous caller): limits off, or an admin when admins bypass. */
export function callerExempt(ctx: Pick<AppContext, 'settings'>, user: Pick<UserRow, 'role'> | null): boolean {
  const settings = ctx.settings.get();
  if (!settings.ratelimitEnabled) return true;
  return settings.ratelimitAdminBypass && user !== null && user.role !== 'USER';
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

/**
 * Route config for shortening URLs (POST /api/user/urls): the upload limit's budget (Zipline's global limiter covers
 * both), counted on its own.
 */
export function shortenRateLimit(ctx: AppContext) {
  return { ...uploadRateLimit(ctx), groupId: 'shorten' };
}

/** Route config for login attempts: 10 a minute per address, whatever the settings say about uploads. */
export function loginRateLimit(ctx: AppContext) {
  return attemptsRateLimit(ctx, 'login');
}

/** Guesses at one file's or short URL's password allowed per address and minute. */
export const PASSWORD_GUESSES_PER_MINUTE = 10;

/**
 * What a route passes to unlockFile/unlockUrl to count one guess at a target's password: one counter per file or
 * short URL and address, shared by the JSON unlock route and the page's password form (so that a password cannot be
 * guessed at twice the rate through two doors); past the limit -> 429, even for the right password.
 */
export function passwordGuessGuard(request: FastifyRequest, kind: 'file' | 'url' | 'share') {
  return async (targetId: string): Promise<void> => {
    guessKeys.set(request, `password-guess:${kind}:${targetId}:${request.ip}`);
    const result = await request.server.passwordGuessLimit(request);
    if (!result.isAllowed && result.isExceeded) {
      throw new ApiError(9000, `too many requests, retry in ${result.ttlInSeconds} seconds`, {
        status: 429,
        headers: { 'retry-after': String(result.ttlInSeconds) },
      });
    }
  };
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

/** Guesses of a secret (passwords, codes): 10 a minute per address, counted per group. */
function attemptsRateLimit(ctx: AppContext, groupId: string) {
  return {
    groupId,
    max: 10,
    timeWindow: 60_000,
    allowList: () => !ctx.settings.get().ratelimitEnabled,
  };
}
