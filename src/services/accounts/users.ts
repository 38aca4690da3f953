// User administration: what an ADMIN or SUPERADMIN may do to other accounts. The role rules live here:
// - an ADMIN manages USERs; a SUPERADMIN manages USERs and ADMINs; SUPERADMINs are peers that nobody else manages
//   (3019 to edit, 3009 to delete), though each may edit themselves;
// - the ADMIN role is granted only by a SUPERADMIN (3008 on create, 3007 on change), and so is the SUPERADMIN role
//   (3015: a SUPERADMIN-only operation);
// - nobody deletes themselves (3010), and the last SUPERADMIN cannot step down (3007), even when two try at once.
import type { AppContext } from '../../context.js';
import type { Db, Role, UserRow } from '../../db/schema/tables.js';
import { isUniqueViolation } from '../../db/errors.js';
import { ApiError } from '../../lib/errors.js';
import type { ErrorCode } from '../../lib/error-codes.js';
import { hashPassword } from '../../lib/security/passwords.js';
import { assertNewPassword } from '../../lib/security/password-rules.js';
import { canonicalUsername } from '../../lib/text/usernames.js';
import type { QuotaInput, UserDto } from '../../schemas/user.js';
import { managesRole } from '../../lib/security/roles.js';
import {
  findUserByName,
  freshTokenColumns,
  insertUser,
  loadUserDto,
  loadUserDtos,
  parseAvatar,
  usernameColumns,
} from './account.js';
import { isDeepPage, listRunner, MANY_MATCHES, pageOfRows } from '../lists/pages.js';
import { decodeListCursor, encodeListCursor, listKey, type ListPosition } from '../lists/cursors.js';
import { searchMatch, USER_SEARCH } from '../../db/schema/search-index.js';
import { resumeDeletions } from '../operations/unfinished-deletions.js';
import { beginUserDeletion, continueUserDeletion } from './user-deletion.js';
import { userNotDeleted } from './deleted-owners.js';
import { usageOfOne } from '../statistics/usage.js';
import { resolveQuotaInput, setUserQuota, type QuotaLimits } from './quotas.js';
import { deleteSessionsOf } from './sessions.js';
import { setUserColumns } from './user-records.js';
import { endFirstSetup } from '../operations/settings.js';
import { listTags } from '../organise/tags.js';
import { type TagWithCount } from '../organise/dto.js';

/** Whether `actor` may edit or delete `target` (acting on oneself is checked by the operation). */
function canManage(actor: UserRow, target: UserRow): boolean {
  return actor.id === target.id || managesRole(actor.role, target.role);
}

/** Refuses giving `role` to an account: ADMIN needs a SUPERADMIN (`adminCode`), SUPERADMIN too (3015). */
function assertCanGrant(actor: UserRow, role: Role, adminCode: ErrorCode): void {
  if (role === 'USER' || actor.role === 'SUPERADMIN') return;
  if (role === 'SUPERADMIN') throw new ApiError(3015, 'only a SUPERADMIN can grant the SUPERADMIN role');
  throw new ApiError(adminCode, `only a SUPERADMIN can grant the ${role} role`);
}

/** Reads a user inside a transaction, locked on PostgreSQL until it ends (SQLite transactions are serial). */
async function lockUser(ctx: AppContext, trx: Db, id: string): Promise<UserRow> {
  let query = trx.selectFrom('users').selectAll().where('id', '=', id).where(userNotDeleted('users.id'));
  if (ctx.engine === 'postgres') query = query.forUpdate();
  const user = await query.executeTakeFirst();
  if (!user) throw new ApiError(4009);
  return user;
}

/**
 * Locks every SUPERADMIN row (in id order, so that two callers cannot deadlock) and returns how many there are. A
 * concurrent demotion that commits first is seen here once its lock is released, so two SUPERADMINs stepping down
 * at once cannot both pass a "more than one" check.
 */
async function lockSuperadmins(ctx: AppContext, trx: Db): Promise<number> {
  let query = trx.selectFrom('users').select('id').where('role', '=', 'SUPERADMIN').orderBy('id');
  if (ctx.engine === 'postgres') query = query.forUpdate();
  return (await query.execute()).length;
}

export interface UserListQuery {
  page: number;
  /** null: every match on one page (Zipline's User[] answer; as long as the list). */
  perpage: number | null;
  /** A `nextCursor` of an earlier page of the same listing: the page after it (then `page` is not used). */
  cursor?: string | undefined;
  /** Who lists: a cursor is bound to them (another admin's is refused like a malformed one). */
  listedBy: string;
  /** Leave this account out (Zipline's noincl: the caller). */
  excludeId?: string | undefined;
  /** Part of the username, case-insensitive (all of Unicode, as the file search). */
  search?: string | undefined;
  role?: Role | undefined;
}

export interface UserList {
  users: UserDto[];
  page: number;
  perpage: number;
  total: number;
  /** The cursor of the page after this one; null on the last. */
  nextCursor: string | null;
}

/**
 * One page of users, oldest first (ties by id), read from users_created_id: by number from the page's nearer end, or
 * after a cursor's position (keyset). A search of three characters or more goes through the usernames' trigram index.
 */
export async function listUsers(ctx: AppContext, query: UserListQuery): Promise<UserList> {
  const listing = userListing(ctx, query);
  const key = listKey(['users', query.listedBy, query.search ?? null, query.role ?? null, query.excludeId ?? null]);
  const after = query.cursor === undefined ? undefined : decodeListCursor(ctx, key, query.cursor, 'number');
  // What may read many rows runs on ctx.reads (off the main thread on SQLite): a search's count, and then its pages
  // when it has many matches, a page number deep in the list, many users at once.
  const [counted] = await listRunner(ctx, Boolean(query.search))(listing.count);
  const count = Number(counted!.count);
  const perpage = query.perpage ?? Math.max(count, 1);
  const many = (Boolean(query.search) || query.perpage === null) && count > MANY_MATCHES;
  const long = many || (!after && isDeepPage(query.page, perpage, count));
  const run = listRunner(ctx, long);
  const { rows, hasNext } =
    query.perpage === null
      ? { rows: await run(listing.page('forward', 0, null)), hasNext: false }
      : await pageOfRows(
          { page: query.page, perPage: perpage, after },
          count,
          (position, limit) => run(listing.after(position).limit(limit)),
          (direction, offset, limit) => run(listing.page(direction, offset, limit)),
        );
  const last = rows.at(-1);
  return {
    users: await loadUserDtos(ctx, ctx.db, rows),
    page: query.page,
    perpage,
    total: count,
    nextCursor: hasNext && last ? encodeListCursor(ctx, key, { value: last.created_at, id: last.id }) : null,
  };
}

function userListing(ctx: AppContext, query: Pick<UserListQuery, 'excludeId' | 'search' | 'role'>) {
  let base = ctx.db.selectFrom('users').where(userNotDeleted('users.id'));
  if (query.search) base = base.where(searchMatch(ctx.engine, USER_SEARCH, ['username'], query.search));
  if (query.role) base = base.where('role', '=', query.role);
  if (query.excludeId) base = base.where('id', '!=', query.excludeId);
  const page = (direction: 'forward' | 'backward', offset: number, limit: number | null) => {
    const order = direction === 'forward' ? 'asc' : 'desc';
    const q = base.selectAll().orderBy('created_at', order).orderBy('id', order);
    return limit === null ? q : q.limit(limit).offset(offset);
  };
  // Oldest first, ties by id: the users after (v, i) are younger, or as old with a greater id.
  const after = (position: ListPosition) =>
    base
      .selectAll()
      .where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(Number(position.value), position.id)))
      .orderBy('created_at')
      .orderBy('id');
  const count = base.select((eb) => eb.fn.countAll<number | string>().as('count'));
  return { base, count, page, after };
}

/** The statements of a page of users, compiled (for the tests of their query plans). */
export function userListStatements(ctx: AppContext, query: Pick<UserListQuery, 'excludeId' | 'search' | 'role'>) {
  const listing = userListing(ctx, query);
  return {
    forward: listing.page('forward', 20, 20).compile(),
    backward: listing.page('backward', 20, 20).compile(),
    after: listing.after({ value: 1, id: 'm' }).limit(20).compile(),
  };
}

/** The count of a listing of users, compiled (for the tests of its query plan). */
export const userCountStatement = (ctx: AppContext, query: Pick<UserListQuery, 'excludeId' | 'search' | 'role'>) =>
  userListing(ctx, query).count.compile();

/** GET /api/users/:id. Unknown -> 4009; an ADMIN asking for an ADMIN or a SUPERADMIN -> 3019, as Zipline. */
export async function getUser(ctx: AppContext, actor: UserRow, id: string): Promise<UserDto> {
  return loadUserDto(ctx, await readableUser(ctx, actor, id));
}

/** The account `actor` may read (a SUPERADMIN: any; others: themselves and those they manage): unknown -> 4009, another -> 3019. */
export async function readableUser(ctx: AppContext, actor: UserRow, id: string): Promise<UserRow> {
  const user = await ctx.db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', id)
    .where(userNotDeleted('users.id'))
    .executeTakeFirst();
  if (!user) throw new ApiError(4009);
  if (actor.role !== 'SUPERADMIN' && !canManage(actor, user)) {
    throw new ApiError(3019, `a ${actor.role} cannot read a ${user.role}`);
  }
  return user;
}

/** GET /api/users/:id/tags: the tags of a user `actor` may read (readableUser's errors). */
export async function readableUserTags(ctx: AppContext, actor: UserRow, id: string): Promise<TagWithCount[]> {
  return listTags(ctx, (await readableUser(ctx, actor, id)).id);
}

export interface NewUserByAdmin {
  username: string;
  password: string;
  role?: Role | undefined;
  avatar?: string | null | undefined;
  quota?: QuotaInput | null | undefined;
}

/** POST /api/users: a taken username -> 1040; the role rules -> 3008/3015; a password the rules refuse -> 1000. */
export async function createUser(ctx: AppContext, actor: UserRow, input: NewUserByAdmin): Promise<UserDto> {
  const role = input.role ?? 'USER';
  assertCanGrant(actor, role, 3008);
  const limits = input.quota === undefined ? null : resolveQuotaInput(input.quota);
  canonicalUsername(input.username);
  const avatar = input.avatar ? parseAvatar(input.avatar) : null;
  assertNewPassword(input.password, ctx.settings.get().passwordMinLength);
  // Hash before the transaction: argon2 takes tens of milliseconds and must not hold a database lock.
  const passwordHash = await hashPassword(input.password);
  return ctx.db.transaction().execute(async (trx) => {
    const user = await insertUser(ctx, trx, { username: input.username, passwordHash, role, avatar }, 1040);
    if (limits) await setUserQuota(ctx, trx, user.id, limits);
    return loadUserDto(ctx, user, trx);
  });
}

export interface UserEdit {
  username?: string | undefined;
  password?: string | undefined;
  avatar?: string | null | undefined;
  role?: Role | undefined;
  /** null removes the quota. */
  quota?: QuotaInput | null | undefined;
}

/**
 * PATCH /api/users/:id. Missing properties stay. Unknown user -> 4009, a user the actor does not manage -> 3019,
 * a role the actor cannot grant -> 3007/3015, the last SUPERADMIN stepping down -> 3007, a taken username -> 1039.
 * A new password set by someone else ends the user's sessions; one the password rules refuse -> 1000.
 */
export async function updateUser(ctx: AppContext, actor: UserRow, id: string, edit: UserEdit): Promise<UserDto> {
  const limits: QuotaLimits | null | undefined = edit.quota === undefined ? undefined : resolveQuotaInput(edit.quota);
  const changes: Partial<UserRow> = {};
  if (edit.username !== undefined) Object.assign(changes, usernameColumns(edit.username));
  if (edit.avatar !== undefined) changes.avatar = edit.avatar === null ? null : parseAvatar(edit.avatar);
  // A new password replaces the API token too: whoever held the old credentials holds nothing now.
  if (edit.password !== undefined) {
    assertNewPassword(edit.password, ctx.settings.get().passwordMinLength);
    Object.assign(changes, { password: await hashPassword(edit.password) }, freshTokenColumns(ctx));
  }

  return ctx.db.transaction().execute(async (trx) => {
    // A role change may remove a SUPERADMIN: take their locks first (always in the same order), then the target's.
    const superadmins = edit.role !== undefined ? await lockSuperadmins(ctx, trx) : 0;
    const target = await lockUser(ctx, trx, id);
    if (!canManage(actor, target)) throw new ApiError(3019, `a ${actor.role} cannot modify a ${target.role}`);
    const self = actor.id === target.id;
    if (self && limits !== undefined && actor.role !== 'SUPERADMIN') {
      throw new ApiError(3019, 'only a SUPERADMIN can change their own quota');
    }
    if (edit.role !== undefined && edit.role !== target.role) {
      assertCanGrant(actor, edit.role, 3007);
      if (target.role === 'SUPERADMIN' && superadmins <= 1) {
        throw new ApiError(3007, 'the last SUPERADMIN cannot give up the role');
      }
      changes.role = edit.role;
    }
    if (Object.keys(changes).length > 0) {
      try {
        await setUserColumns(trx, id, { ...changes, updated_at: ctx.clock.now() });
      } catch (err) {
        if (isUniqueViolation(err, 'username')) throw new ApiError(1039);
        throw err;
      }
    }
    if (limits !== undefined) await setUserQuota(ctx, trx, id, limits);
    if (changes.password !== undefined && !self) await deleteSessionsOf(trx, id);
    const updated = await trx.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    return loadUserDto(ctx, updated, trx);
  });
}

/** A user holding up to this many files and short URLs is deleted before the answer; a larger one after it. */
const AWAITED_DELETION_ROWS = 10_000;

/**
 * DELETE /api/users/:id. Unknown user -> 4009, oneself -> 3010, a user the actor does not manage -> 3009 (so a
 * SUPERADMIN is never deleted, and the last one stays). With `withContent` the user's files and short URLs go too,
 * their bytes removed from storage once the database no longer refers to them; without it they stay, owner-less.
 * One short transaction makes the user (and with `withContent` their files and links) gone at once; their rows follow
 * in short batches (services/files/deletions.ts): before the answer for up to AWAITED_DELETION_ROWS of them, after it for
 * more (resumed on the next start after a crash).
 */
export async function deleteUser(
  ctx: AppContext,
  actor: UserRow,
  id: string,
  options: { withContent: boolean },
): Promise<{ user: UserDto; deletedFiles: number; deletedUrls: number }> {
  const result = await ctx.db.transaction().execute(async (trx) => {
    const target = await lockUser(ctx, trx, id);
    if (target.id === actor.id) throw new ApiError(3010);
    if (!canManage(actor, target)) throw new ApiError(3009, `a ${actor.role} cannot delete a ${target.role}`);
    const user = await loadUserDto(ctx, target, trx);
    const usage = await usageOfOne(trx, id);
    await beginUserDeletion(ctx, trx, id, options.withContent);
    return { user, usage };
  });
  const { files, urls } = result.usage;
  if (files + urls <= AWAITED_DELETION_ROWS) {
    await continueUserDeletion(ctx, id);
  } else {
    void resumeDeletions(ctx, { atStart: false }).catch((err: unknown) =>
      ctx.log.error({ err, userId: id }, 'deleting a user stopped; the next run of the job continues it'),
    );
  }
  return {
    user: result.user,
    deletedFiles: options.withContent ? files : 0,
    deletedUrls: options.withContent ? urls : 0,
  };
}

// The operator: whoever runs the `chute` command on the server, with its configuration. They stand above the role
// rules (resetting a SUPERADMIN's lost password is what they are for), but the last SUPERADMIN still stays one.

/** One account as `chute user list` shows it. */
export interface AccountSummary {
  username: string;
  role: Role;
  createdAt: number;
}

/** Every account, oldest first. */
export async function listAccounts(ctx: Pick<AppContext, 'db'>): Promise<AccountSummary[]> {
  const rows = await ctx.db
    .selectFrom('users')
    .select(['username', 'role', 'created_at'])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ username: r.username, role: r.role, createdAt: r.created_at }));
}

/** The account a name designates (exactly, else as a reader would match it); unknown -> 4009. */
async function accountNamed(ctx: AppContext, username: string): Promise<UserRow> {
  const user = await findUserByName(ctx.db, username);
  if (!user) throw new ApiError(4009, username);
  return user;
}

/**
 * `chute user create`: a taken username -> 1040, a password the rules refuse -> 1000. A SUPERADMIN made this way also ends first-time setup (in the same
 * transaction), so that nobody can claim the instance through the setup page afterwards.
 */
export async function createUserAsOperator(
  ctx: AppContext,
  input: { username: string; password: string; role: Role },
): Promise<UserRow> {
  canonicalUsername(input.username, 'username');
  assertNewPassword(input.password, ctx.settings.get().passwordMinLength, 'password');
  const passwordHash = await hashPassword(input.password);
  return ctx.db.transaction().execute(async (trx) => {
    const user = await insertUser(ctx, trx, { username: input.username, passwordHash, role: input.role }, 1040);
    if (input.role === 'SUPERADMIN') {
      await endFirstSetup(trx, ctx.clock.now());
    }
    return user;
  });
}

/**
 * `chute user reset-password`: a new password, a new API token, and every session of the account ends (whoever had
 * the old credentials has nothing now). Unknown user -> 4009; a password the rules refuse -> 1000.
 */
export async function resetPasswordAsOperator(ctx: AppContext, username: string, password: string): Promise<UserRow> {
  const user = await accountNamed(ctx, username);
  assertNewPassword(password, ctx.settings.get().passwordMinLength, 'password');
  const changes = { password: await hashPassword(password), ...freshTokenColumns(ctx), updated_at: ctx.clock.now() };
  await ctx.db.transaction().execute(async (trx) => {
    await setUserColumns(trx, user.id, changes);
    await deleteSessionsOf(trx, user.id);
  });
  return { ...user, ...changes };
}

/** `chute user set-role`: unknown user -> 4009; the last SUPERADMIN giving up the role -> 3007. */
export async function setRoleAsOperator(ctx: AppContext, username: string, role: Role): Promise<UserRow> {
  const { id } = await accountNamed(ctx, username);
  return ctx.db.transaction().execute(async (trx) => {
    const superadmins = await lockSuperadmins(ctx, trx);
    const target = await lockUser(ctx, trx, id);
    if (target.role === role) return target;
    if (target.role === 'SUPERADMIN' && superadmins <= 1) {
      throw new ApiError(3007, 'the last SUPERADMIN cannot give up the role');
    }
    await setUserColumns(trx, id, { role, updated_at: ctx.clock.now() });
    return { ...target, role };
  });
}
