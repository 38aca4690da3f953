// User accounts: first-time setup, creating users, logging in with a password (and its second step), the API token,
// and the profile a user edits about themselves.
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { AppContext } from '../../context.js';
import type { Db, Role, SessionRow, UserRow } from '../../db/schema/tables.js';
import { isUniqueViolation } from '../../db/errors.js';
import { NOT_NOW, precompiledByKey } from '../../db/precompiled.js';
import { ApiError } from '../../lib/errors.js';
import type { ErrorCode } from '../../lib/error-codes.js';
import { newId, newSecretToken } from '../../lib/security/ids.js';
import { parseBase64Image } from '../../lib/formats/images.js';
import { hashPassword, verifyPassword } from '../../lib/security/passwords.js';
import { assertNewPassword } from '../../lib/security/password-rules.js';
import { canonicalUsername, usernameKey } from '../../lib/text/usernames.js';
import type { UserDto, UserViewSettings } from '../../schemas/user.js';
import { parseView, toUserDto } from './dto.js';
import {
  listSessions,
  listSessionsOf,
  revokeOtherSessions,
  revokeSession,
  signIn,
  type SessionOrigin,
  type SignedIn,
} from './sessions.js';
import { acceptSecondFactorCode } from './totp.js';
import { hasPasskeys, verifyPasskeyAssertion, type RelyingParty } from './passkeys.js';
import { userNotDeleted } from './deleted-owners.js';
import { insertUserRow, setUserColumns } from './user-records.js';
import { claimFirstSetup } from '../operations/settings.js';

/** Largest avatar accepted, decoded. */
export const AVATAR_MAX_BYTES = 1024 * 1024;

/** A base64 avatar as it is stored (a data URL of a sniffed PNG/JPEG/GIF/WebP); too large or not an image -> 1000. */
export function parseAvatar(base64: string): string {
  const image = parseBase64Image(base64, AVATAR_MAX_BYTES);
  if (!image.ok) {
    throw new ApiError(1000, `avatar: ${image.reason}`, {
      extra: { issues: [{ path: 'body.avatar', message: image.reason }] },
    });
  }
  return image.dataUrl;
}

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).where(userNotDeleted('users.id')).executeTakeFirst();
}

/**
 * The user of a main API token, by the token's hash. On SQLite the answers are kept in memory while no users row and no
 * user deletion may have changed (db/sqlite/row-watch.ts): a client uploading screenshots all day is answered without a query.
 * Few are kept, as a row may hold an avatar of up to 1 MiB (16 of them at most ~22 MiB); the rows answered are shared,
 * nothing may change them.
 */
const userByTokenHash = precompiledByKey(
  (db, hash) => db.selectFrom('users').selectAll().where('token_hash', '=', hash).where(userNotDeleted('users.id')),
  { cache: { tables: [{ table: 'users' }, { table: 'user_deletions' }], entries: 16 } },
);

/** The user an API token belongs to, or undefined. */
export async function findUserByToken(ctx: AppContext, token: string): Promise<UserRow | undefined> {
  const hash = ctx.secrets.hash(token);
  const now = userByTokenHash.now(ctx.db, hash);
  return now === NOT_NOW ? userByTokenHash(ctx.db, hash) : now;
}

/** The full User resource: the row with its sessions, OAuth links, passkeys and quota. */
export async function loadUserDto(ctx: AppContext, user: UserRow, db: Db = ctx.db): Promise<UserDto> {
  return (await loadUserDtos(ctx, db, [user]))[0]!;
}

/** The User resources of several rows, with their relations loaded in one query per relation. */
export async function loadUserDtos(ctx: AppContext, db: Db, rows: UserRow[]): Promise<UserDto[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [sessions, oauthProviders, passkeys, quotas] = await Promise.all([
    listSessionsOf(ctx, db, ids),
    db.selectFrom('oauth_providers').selectAll().where('user_id', 'in', ids).orderBy('created_at').execute(),
    db.selectFrom('passkeys').selectAll().where('user_id', 'in', ids).orderBy('created_at').execute(),
    db.selectFrom('quotas').selectAll().where('user_id', 'in', ids).execute(),
  ]);
  return rows.map((row) =>
    toUserDto(row, {
      sessions: sessions.filter((s) => s.user_id === row.id),
      oauthProviders: oauthProviders.filter((p) => p.user_id === row.id),
      passkeys: passkeys.filter((k) => k.user_id === row.id),
      quota: quotas.find((q) => q.user_id === row.id),
    }),
  );
}

export interface NewUserInput {
  username: string;
  /** argon2id hash from hashPassword() (made before any transaction); null for OAuth-only accounts. */
  passwordHash: string | null;
  role: Role;
  avatar?: string | null;
}

/**
 * Inserts a user with a fresh API token. The username is stored in its canonical form (lib/text/usernames.ts: a name it
 * refuses -> 1000); one taken in any case or spelling -> `takenCode` (one code per context, as Zipline: 1039 on
 * registration, 1040 when an admin creates a user).
 */
export async function insertUser(
  ctx: AppContext,
  db: Db,
  input: NewUserInput,
  takenCode: ErrorCode = 1040,
): Promise<UserRow> {
  const username = canonicalUsername(input.username);
  const now = ctx.clock.now();
  const token = newSecretToken();
  const row: UserRow = {
    id: newId(),
    username,
    username_key: usernameKey(username),
    password: input.passwordHash,
    avatar: input.avatar ?? null,
    role: input.role,
    view: '{}',
    token_hash: ctx.secrets.hash(token),
    token_enc: ctx.secrets.encrypt(token),
    totp_secret: null,
    totp_last_step: null,
    created_at: now,
    updated_at: now,
  };
  try {
    await insertUserRow(db, row);
  } catch (err) {
    if (isUniqueViolation(err, 'username')) throw new ApiError(takenCode);
    throw err;
  }
  return row;
}

export async function isFirstSetup(ctx: AppContext): Promise<boolean> {
  const row = await ctx.db.selectFrom('settings').select('first_setup').where('id', '=', 1).executeTakeFirst();
  if (!row) throw new ApiError(4010);
  return Number(row.first_setup) === 1;
}

/**
 * Creates the first user, a SUPERADMIN, and leaves setup mode, in one transaction. The conditional update of the
 * settings record lets exactly one of several concurrent calls win; the others, and every later call -> 9001. A
 * password the rules refuse (lib/security/password-rules.ts) -> 1000.
 */
export async function completeFirstSetup(
  ctx: AppContext,
  input: { username: string; password: string },
): Promise<UserRow> {
  canonicalUsername(input.username);
  assertNewPassword(input.password, ctx.settings.get().passwordMinLength);
  // Hash before the transaction: argon2 takes tens of milliseconds and must not hold a database lock.
  const passwordHash = await hashPassword(input.password);
  return ctx.db.transaction().execute(async (trx) => {
    if (!(await claimFirstSetup(trx, ctx.clock.now()))) {
      throw new ApiError(9001, 'setup has already been completed');
    }
    return insertUser(ctx, trx, { username: input.username, passwordHash, role: 'SUPERADMIN' });
  });
}

/** completeFirstSetup(), the new SUPERADMIN signed in at once, so that a dashboard carries on without a second step. */
export async function completeFirstSetupSignedIn(
  ctx: AppContext,
  input: { username: string; password: string },
  origin: SessionOrigin,
): Promise<SignedIn> {
  return signIn(ctx, await completeFirstSetup(ctx, input), origin);
}

export type PasswordLoginResult = { kind: 'ok'; user: UserRow } | { kind: 'totp-required'; passkey: boolean };

export interface PasswordLoginInput {
  username: string;
  password: string;
  /** The second step: a TOTP code or a recovery code ... */
  code?: string | undefined;
  /** ... or a passkey's answer to the login challenge `challengeId` (GET /api/auth/webauthn/options). */
  passkey?: { challengeId?: string | undefined; response: AuthenticationResponseJSON } | undefined;
}

/**
 * Checks a username and password, and the second step when the account has TOTP: a TOTP code, a recovery code or
 * one of the account's passkeys. Unknown user and wrong password both -> 1044 after the same argon2 work; a wrong
 * or already used code -> 1045; a passkey of another account -> 1052 (other passkey failures: verifyPasskeyAssertion);
 * no second step -> totp-required, saying whether a passkey would do.
 */
export async function loginWithPassword(
  ctx: AppContext,
  input: PasswordLoginInput,
  rp: RelyingParty,
): Promise<PasswordLoginResult> {
  const user = await findUserByName(ctx.db, input.username);
  const ok = await verifyPassword(user?.password, input.password);
  if (!user || !ok) throw new ApiError(1044);
  return checkSecondStep(ctx, user, input, rp);
}

/**
 * The second step of a sign-in whose first (a password, here or in the directory) `user` passed: none needed without
 * TOTP; else the passkey or the code of `input` (1052, 1045 when wrong), or totp-required when it has neither.
 */
export async function checkSecondStep(
  ctx: AppContext,
  user: UserRow,
  input: Pick<PasswordLoginInput, 'code' | 'passkey'>,
  rp: RelyingParty,
): Promise<PasswordLoginResult> {
  if (!user.totp_secret) return { kind: 'ok', user };
  if (input.passkey) {
    const owner = await verifyPasskeyAssertion(ctx, rp, input.passkey, { requireUserVerification: false });
    if (owner.id !== user.id) throw new ApiError(1052, 'the passkey belongs to another account');
    return { kind: 'ok', user };
  }
  if (!input.code) {
    return { kind: 'totp-required', passkey: ctx.settings.get().mfaPasskeys && (await hasPasskeys(ctx, user.id)) };
  }
  if (!(await acceptSecondFactorCode(ctx, user, input.code))) throw new ApiError(1045);
  return { kind: 'ok', user };
}

/** loginWithPassword(), signing the user in once no second step is missing. */
export async function signInWithPassword(
  ctx: AppContext,
  input: PasswordLoginInput,
  rp: RelyingParty,
  origin: SessionOrigin,
): Promise<({ kind: 'signed-in' } & SignedIn) | { kind: 'totp-required'; passkey: boolean }> {
  const result = await loginWithPassword(ctx, input, rp);
  if (result.kind === 'totp-required') return result;
  return { kind: 'signed-in', ...(await signIn(ctx, result.user, origin)) };
}

/**
 * The account a typed name signs in to: the one with exactly that name, else the one whose name is the same to a
 * reader (any case, full-width letters, surrounding spaces). The exact match first keeps every account reachable
 * when two older names share a key (migration 0014).
 */
export async function findUserByName(db: Db, typed: string): Promise<UserRow | undefined> {
  const live = db.selectFrom('users').selectAll().where(userNotDeleted('users.id'));
  const exact = await live.where('username', '=', typed).executeTakeFirst();
  if (exact) return exact;
  return live.where('username_key', '=', usernameKey(typed)).executeTakeFirst();
}

/** The columns of a username change (canonical form and key); a name lib/text/usernames.ts refuses -> 1000. */
export function usernameColumns(requested: string): Pick<UserRow, 'username' | 'username_key'> {
  const username = canonicalUsername(requested);
  return { username, username_key: usernameKey(username) };
}

/** The user's API token in clear, as GET /api/user shows it. */
export function revealToken(ctx: AppContext, user: UserRow): string {
  return ctx.secrets.decrypt(user.token_enc);
}

/** The columns of a fresh API token (a password change sets them too: the old token stops working with it). */
export function freshTokenColumns(ctx: AppContext): Pick<UserRow, 'token_hash' | 'token_enc'> {
  const token = newSecretToken();
  return { token_hash: ctx.secrets.hash(token), token_enc: ctx.secrets.encrypt(token) };
}

/** Replaces the API token; the old one stops working at once. */
export async function regenerateToken(ctx: AppContext, userId: string): Promise<UserRow> {
  await setUserColumns(ctx.db, userId, { ...freshTokenColumns(ctx), updated_at: ctx.clock.now() });
  const user = await findUserById(ctx.db, userId);
  if (!user) throw new ApiError(4009);
  return user;
}

/**
 * Signs out one of the user's other sessions (`sessionId`; revokeSession's errors), or all of them but the current
 * one, with `rotateToken` replacing the API token too, so that nothing signed in before keeps access. Answers the
 * sessions left.
 */
export async function signOutSessions(
  ctx: AppContext,
  userId: string,
  currentSessionId: string | undefined,
  which: { sessionId: string } | { all: true; rotateToken?: boolean | undefined },
): Promise<SessionRow[]> {
  if ('sessionId' in which) await revokeSession(ctx, userId, currentSessionId, which.sessionId);
  else {
    await revokeOtherSessions(ctx, userId, currentSessionId);
    if (which.rotateToken) await regenerateToken(ctx, userId);
  }
  return listSessions(ctx, userId);
}

export interface ProfileUpdate {
  username?: string | undefined;
  password?: string | undefined;
  /** Must match the current password (1066); required with a new password from a session (1067). */
  currentPassword?: string | undefined;
  avatar?: string | null | undefined;
  view?: UserViewSettings | undefined;
}

/**
 * PATCH /api/user: missing properties stay, view merges key by key, a taken username -> 1038 (as Zipline). A new password also
 * replaces the API token and signs out every other session of the user (a stolen session or token must not outlive
 * the password change meant to lock its thief out); `currentSessionId` is the one making the change, which stays.
 *
 * From a session (`currentSessionId` set) a new password needs the current one: missing -> 1067, wrong -> 1066. An
 * account without a password (OAuth only) sets its first one without it, and naming a current password it does not
 * have -> 1068. With the API token the current password is checked when given. A new password the rules refuse
 * (lib/security/password-rules.ts) -> 1000, after the current one was checked.
 */
export async function updateProfile(
  ctx: AppContext,
  user: UserRow,
  patch: ProfileUpdate,
  currentSessionId: string | null = null,
): Promise<UserRow> {
  const changes: Partial<UserRow> = {};
  if (patch.username !== undefined && patch.username !== user.username) {
    Object.assign(changes, usernameColumns(patch.username));
  }
  if (patch.password !== undefined) {
    if (patch.currentPassword !== undefined) {
      if (!user.password) throw new ApiError(1068);
      if (!(await verifyPassword(user.password, patch.currentPassword))) throw new ApiError(1066);
    } else if (currentSessionId !== null && user.password) {
      throw new ApiError(1067);
    }
    assertNewPassword(patch.password, ctx.settings.get().passwordMinLength);
    changes.password = await hashPassword(patch.password);
    Object.assign(changes, freshTokenColumns(ctx));
  }
  if (patch.avatar !== undefined) changes.avatar = patch.avatar === null ? null : parseAvatar(patch.avatar);
  if (patch.view !== undefined) {
    changes.view = JSON.stringify({ ...parseView(user.view), ...patch.view });
  }
  if (Object.keys(changes).length === 0) return user;
  changes.updated_at = ctx.clock.now();
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await setUserColumns(trx, user.id, changes);
      if (changes.password !== undefined) await revokeOtherSessions(ctx, user.id, currentSessionId, trx);
    });
  } catch (err) {
    // 1038 on PATCH /api/user, as Zipline (registration answers 1039).
    if (isUniqueViolation(err, 'username')) throw new ApiError(1038);
    throw err;
  }
  return { ...user, ...changes };
}
