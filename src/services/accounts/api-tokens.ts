// Scoped API tokens: any number per user beside the single API token, each limited to some scopes
// (lib/security/token-scopes.ts) and optionally expiring. The secret is shown once, when made, and stored only as a keyed hash
// (HMAC with a key derived from SECRET); revoking deletes the row, so the token stops working at once on every instance.
import type { AppContext } from '../../context.js';
import type { ApiTokenRow, UserRow } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import { newId, newSecretToken } from '../../lib/security/ids.js';
import { parseScopes, TOKEN_SCOPES, type TokenScope } from '../../lib/security/token-scopes.js';
import { userNotDeleted } from './deleted-owners.js';

/** Every scoped token starts so, which tells it from the main API token without a second look-up. */
export const SCOPED_TOKEN_PREFIX = 'chute_';

/** last_used_at is written at most this often per token: a durable write per request would weigh on uploads. */
export const LAST_USED_INTERVAL_MS = 60_000;

/** How many scoped tokens one user may hold. */
export const MAX_TOKENS_PER_USER = 100;

export interface NewApiToken {
  name: string;
  scopes: TokenScope[];
  /** Epoch ms; must be in the future. */
  expiresAt?: number | null;
}

/** Makes a token for `userId`; answers it with its secret, which is not kept and cannot be shown again. */
export async function createApiToken(
  ctx: AppContext,
  userId: string,
  input: NewApiToken,
): Promise<{ id: string; name: string; scopes: TokenScope[]; token: string }> {
  const now = ctx.clock.now();
  const expiresAt = input.expiresAt ?? null;
  if (expiresAt !== null && expiresAt <= now) throw new ApiError(1000, 'expiresAt must be in the future');
  const scopes = TOKEN_SCOPES.filter((s) => input.scopes.includes(s));
  if (scopes.length === 0) throw new ApiError(1000, 'a token needs at least one scope');
  const { count } = await ctx.db
    .selectFrom('api_tokens')
    .select((eb) => eb.fn.countAll<string | number>().as('count'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  if (Number(count) >= MAX_TOKENS_PER_USER) {
    throw new ApiError(1000, `at most ${MAX_TOKENS_PER_USER} API tokens per user: revoke one first`);
  }
  const id = newId();
  const token = `${SCOPED_TOKEN_PREFIX}${newSecretToken()}`;
  await ctx.db
    .insertInto('api_tokens')
    .values({
      id,
      user_id: userId,
      name: input.name,
      scopes: scopes.join(' '),
      token_hash: ctx.secrets.hash(token),
      created_at: now,
      last_used_at: null,
      expires_at: expiresAt,
    })
    .execute();
  return { id, name: input.name, scopes, token };
}

/** The user's tokens, newest first, without their secrets (which are not stored). */
export async function listApiTokens(ctx: AppContext, userId: string): Promise<ApiTokenRow[]> {
  return ctx.db
    .selectFrom('api_tokens')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

/** Revokes one of the user's tokens; another user's token, or none -> 9002 (as if it did not exist). */
export async function revokeApiToken(ctx: AppContext, userId: string, id: string): Promise<ApiTokenRow> {
  const row = await ctx.db
    .deleteFrom('api_tokens')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new ApiError(9002, 'no such API token');
  return row;
}

/**
 * The token and its user for a secret that looks like a scoped token; undefined when it is not one (then it may still
 * be a main API token). An expired token -> 2001, like an unknown one. Touches last_used_at at most once a minute.
 */
export async function findApiToken(
  ctx: AppContext,
  secret: string,
): Promise<{ token: ApiTokenRow; scopes: TokenScope[]; user: UserRow } | undefined> {
  if (!secret.startsWith(SCOPED_TOKEN_PREFIX)) return undefined;
  const token = await ctx.db
    .selectFrom('api_tokens')
    .selectAll()
    .where('token_hash', '=', ctx.secrets.hash(secret))
    .executeTakeFirst();
  if (!token) return undefined;
  const now = ctx.clock.now();
  if (token.expires_at !== null && token.expires_at <= now) throw new ApiError(2001, 'the API token has expired');
  const user = await ctx.db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', token.user_id)
    .where(userNotDeleted('users.id'))
    .executeTakeFirst();
  if (!user) throw new ApiError(2001);
  if (token.last_used_at === null || now - token.last_used_at >= LAST_USED_INTERVAL_MS) {
    // Conditional, so that instances answering the same token at once write it once.
    await ctx.db
      .updateTable('api_tokens')
      .set({ last_used_at: now })
      .where('id', '=', token.id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', now - LAST_USED_INTERVAL_MS)]))
      .execute();
  }
  return { token, scopes: parseScopes(token.scopes), user };
}
