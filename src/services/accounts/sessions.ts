// Login sessions: the cookie holds a random secret, the database only its keyed hash and a separate public id.
import type { AppContext } from '../../context.js';
import type { Db, SessionRow, UserRow } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import { newId, newSecretToken } from '../../lib/security/ids.js';
import { describeUserAgent } from '../../lib/formats/user-agent.js';
import { userNotDeleted } from './deleted-owners.js';

/** A session lives this long after its last use. */
export const SESSION_TTL_MS = 30 * 24 * 3_600_000;
/** Last use is written at most this often, so that reading a session is not a write per request. */
const TOUCH_INTERVAL_MS = 3_600_000;

export interface SessionOrigin {
  userAgent: string | undefined;
  /** The x-service-client header, when the client names itself. */
  client: string | undefined;
}

export async function createSession(
  ctx: AppContext,
  userId: string,
  origin: SessionOrigin,
): Promise<{ secret: string; session: SessionRow }> {
  const now = ctx.clock.now();
  const secret = newSecretToken();
  const described = describeUserAgent(origin.userAgent);
  const session: SessionRow = {
    id: newId(),
    secret_hash: ctx.secrets.hash(secret),
    user_id: userId,
    ua: (origin.userAgent ?? '').slice(0, 512),
    client: (origin.client?.trim() || described.client).slice(0, 128),
    device: described.device,
    created_at: now,
    last_seen_at: now,
    expires_at: now + SESSION_TTL_MS,
  };
  await ctx.db.insertInto('sessions').values(session).execute();
  return { secret, session };
}

/** A user who has just proved who they are, and the secret of their new session (for the cookie). */
export interface SignedIn {
  user: UserRow;
  secret: string;
}

/** Signs in `user`, who has just proved who they are: a new session. */
export async function signIn(ctx: AppContext, user: UserRow, origin: SessionOrigin): Promise<SignedIn> {
  const { secret } = await createSession(ctx, user.id, origin);
  return { user, secret };
}

/** The live session a cookie secret belongs to, with its user; undefined when unknown, revoked or expired. */
export async function findSession(
  ctx: AppContext,
  secret: string,
): Promise<{ session: SessionRow; user: UserRow } | undefined> {
  const now = ctx.clock.now();
  const session = await ctx.db
    .selectFrom('sessions')
    .selectAll()
    .where('secret_hash', '=', ctx.secrets.hash(secret))
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!session) return undefined;
  const user = await ctx.db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', session.user_id)
    .where(userNotDeleted('users.id'))
    .executeTakeFirst();
  if (!user) return undefined;
  if (now - session.last_seen_at > TOUCH_INTERVAL_MS) {
    await ctx.db
      .updateTable('sessions')
      .set({ last_seen_at: now, expires_at: now + SESSION_TTL_MS })
      .where('id', '=', session.id)
      .execute();
  }
  return { session, user };
}

export function listSessions(ctx: AppContext, userId: string): Promise<SessionRow[]> {
  return listSessionsOf(ctx, ctx.db, [userId]);
}

/** The live sessions of several users, newest first (one query). */
export function listSessionsOf(ctx: AppContext, db: Db, userIds: string[]): Promise<SessionRow[]> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('user_id', 'in', userIds)
    .where('expires_at', '>', ctx.clock.now())
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

export async function deleteSession(ctx: AppContext, sessionId: string): Promise<void> {
  await ctx.db.deleteFrom('sessions').where('id', '=', sessionId).execute();
}

/** Revokes one of the user's other sessions: the current one -> 1021, one that is not theirs or unknown -> 1031. */
export async function revokeSession(
  ctx: AppContext,
  userId: string,
  currentSessionId: string | undefined,
  sessionId: string,
): Promise<void> {
  if (sessionId === currentSessionId) throw new ApiError(1021);
  const result = await ctx.db
    .deleteFrom('sessions')
    .where('id', '=', sessionId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw new ApiError(1031);
}

/** Revokes every session of the user except the current one; returns how many. */
export async function revokeOtherSessions(
  ctx: AppContext,
  userId: string,
  currentSessionId: string | null | undefined,
  db: Db = ctx.db,
): Promise<number> {
  let query = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (currentSessionId) query = query.where('id', '!=', currentSessionId);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Ends every session of the user, in the caller's transaction (a deletion, credentials replaced by someone else). */
export async function deleteSessionsOf(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
}

/** Removes expired sessions (run periodically). */
export async function purgeExpiredSessions(ctx: AppContext): Promise<number> {
  const result = await ctx.db.deleteFrom('sessions').where('expires_at', '<=', ctx.clock.now()).executeTakeFirst();
  return Number(result.numDeletedRows);
}
