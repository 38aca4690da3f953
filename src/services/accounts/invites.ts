// Invites: codes an admin hands out so that people can register while open registration is off. A code has an
// optional expiry and maximum number of uses; using it is one conditional update, so the last use goes to exactly
// one of several registrations racing for it. A code is found by its keyed hash and kept encrypted (as the API
// token is), so a copy of the database alone registers no one; admins still list codes to copy their links.
import type { AppContext } from '../../context.js';
import type { Db, InviteRow, Role } from '../../db/schema/tables.js';
import { isUniqueViolation } from '../../db/errors.js';
import { ApiError } from '../../lib/errors.js';
import { toIso } from '../../lib/clock.js';
import { parseDuration } from '../../lib/text/durations.js';
import { newId, randomString } from '../../lib/security/ids.js';
import type { Secrets } from '../../lib/security/secrets.js';

// No 0/O, 1/l/I: codes are read aloud and typed by hand.
const CODE_ALPHABET = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export interface InviteDto {
  id: string;
  code: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
  maxUses: number | null;
  uses: number;
  inviterId: string | null;
  /** As Zipline: the inviter's id, username and role. */
  inviter: { id: string; username: string; role: Role } | null;
}

/** What the register page may learn about a code: whether and how long it can be used; never who made it. */
export interface PublicInviteDto {
  code: string;
  expiresAt: string | null;
  maxUses: number | null;
  uses: number;
}

type InviteWithInviter = InviteRow & { inviter_username: string | null; inviter_role: Role | null };

/** Marks a code that migration 0014 carried over in clear until sealLegacyInviteCodes hashes it. */
const CLEAR_PREFIX = 'clear:';

function codeOf(ctx: AppContext, row: InviteRow): string {
  if (row.code_enc !== null) return ctx.secrets.decrypt(row.code_enc);
  return row.code_hash.startsWith(CLEAR_PREFIX) ? row.code_hash.slice(CLEAR_PREFIX.length) : '';
}

function toInviteDto(ctx: AppContext, row: InviteWithInviter): InviteDto {
  return {
    id: row.id,
    code: codeOf(ctx, row),
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    expiresAt: row.expires_at === null ? null : toIso(row.expires_at),
    maxUses: row.max_uses,
    uses: row.uses,
    inviterId: row.inviter_id,
    inviter:
      row.inviter_id !== null && row.inviter_username !== null && row.inviter_role !== null
        ? { id: row.inviter_id, username: row.inviter_username, role: row.inviter_role }
        : null,
  };
}

function selectInvites(db: Db) {
  return db
    .selectFrom('invites')
    .leftJoin('users', 'users.id', 'invites.inviter_id')
    .selectAll('invites')
    .select(['users.username as inviter_username', 'users.role as inviter_role']);
}

export async function listInvites(ctx: AppContext): Promise<InviteDto[]> {
  const rows = await selectInvites(ctx.db).orderBy('invites.created_at', 'desc').orderBy('invites.id').execute();
  return rows.map((row) => toInviteDto(ctx, row));
}

/** An invite by its id or its code (4005 when neither matches). */
export async function getInvite(ctx: AppContext, idOrCode: string): Promise<InviteDto> {
  const row = await selectInvites(ctx.db)
    .where((eb) => eb.or([eb('invites.id', '=', idOrCode), eb('invites.code_hash', '=', ctx.secrets.hash(idOrCode))]))
    .executeTakeFirst();
  if (!row) throw new ApiError(4005);
  return toInviteDto(ctx, row);
}

export interface NewInvite {
  /** An ISO date-time, a duration from now ("7d", "12h"), or "never"/null/absent for no expiry. */
  expiresAt?: string | null | undefined;
  /** null or absent: unlimited. */
  maxUses?: number | null | undefined;
}

function expiryOf(ctx: AppContext, expiresAt: string | null | undefined): number | null {
  if (expiresAt === undefined || expiresAt === null || expiresAt === 'never') return null;
  const duration = parseDuration(expiresAt);
  if (duration !== null) return ctx.clock.now() + duration;
  const date = Date.parse(expiresAt);
  const message = 'must be an ISO date-time, a duration such as 7d, or "never"';
  if (!/^\d{4}-\d\d-\d\d/.test(expiresAt) || Number.isNaN(date)) {
    throw new ApiError(1000, `expiresAt ${message}`, { extra: { issues: [{ path: 'body.expiresAt', message }] } });
  }
  if (date <= ctx.clock.now()) {
    const past = 'must be in the future';
    throw new ApiError(1000, `expiresAt ${past}`, { extra: { issues: [{ path: 'body.expiresAt', message: past }] } });
  }
  return date;
}

/** Creates an invite with a fresh code of settings.invitesCodeLength characters (invites off -> 1036). */
export async function createInvite(ctx: AppContext, inviterId: string, input: NewInvite): Promise<InviteDto> {
  if (!ctx.settings.get().invitesEnabled) throw new ApiError(1036);
  const expiresAt = expiryOf(ctx, input.expiresAt);
  const now = ctx.clock.now();
  for (let attempt = 0; ; attempt++) {
    const code = randomString(ctx.settings.get().invitesCodeLength, CODE_ALPHABET);
    const row: InviteRow = {
      id: newId(),
      code_hash: ctx.secrets.hash(code),
      code_enc: ctx.secrets.encrypt(code),
      inviter_id: inviterId,
      expires_at: expiresAt,
      max_uses: input.maxUses ?? null,
      uses: 0,
      created_at: now,
      updated_at: now,
    };
    try {
      await ctx.db.insertInto('invites').values(row).execute();
      return getInvite(ctx, row.id);
    } catch (err) {
      // A code collision is only likely with very short codes; try a few fresh ones before giving up.
      if (!isUniqueViolation(err, 'code') || attempt >= 4) throw err;
    }
  }
}

/** Deletes an invite by id: unknown -> 4004, a database failure -> 6000. Returns what was deleted. */
export async function deleteInvite(ctx: AppContext, id: string): Promise<InviteDto> {
  const row = await selectInvites(ctx.db).where('invites.id', '=', id).executeTakeFirst();
  if (!row) throw new ApiError(4004);
  let deleted: bigint;
  try {
    deleted = (await ctx.db.deleteFrom('invites').where('id', '=', id).executeTakeFirst()).numDeletedRows;
  } catch (err) {
    throw new ApiError(6000, undefined, { cause: err });
  }
  // Deleted by someone else in between: the invite is gone all the same, as asked.
  if (deleted === 0n) throw new ApiError(4004);
  return toInviteDto(ctx, row);
}

function usable(ctx: AppContext, row: InviteRow): boolean {
  return (
    (row.expires_at === null || row.expires_at > ctx.clock.now()) && (row.max_uses === null || row.uses < row.max_uses)
  );
}

/**
 * The public view of a code for the register page: invites off -> 1036, unknown -> 4005, expired or used up -> 1035.
 */
export async function lookUpInviteCode(ctx: AppContext, code: string): Promise<PublicInviteDto> {
  if (!ctx.settings.get().invitesEnabled) throw new ApiError(1036);
  const row = await ctx.db
    .selectFrom('invites')
    .selectAll()
    .where('code_hash', '=', ctx.secrets.hash(code))
    .executeTakeFirst();
  if (!row) throw new ApiError(4005);
  if (!usable(ctx, row))
    throw new ApiError(1035, row.max_uses !== null && row.uses >= row.max_uses ? 'used up' : 'expired');
  return {
    code,
    expiresAt: row.expires_at === null ? null : toIso(row.expires_at),
    maxUses: row.max_uses,
    uses: row.uses,
  };
}

/**
 * Uses the invite once, inside the caller's transaction (so that a failed registration gives the use back). The
 * update only matches a live invite with uses left; concurrent callers are serialised on the row, so of two racing
 * for the last use exactly one gets it. Unknown, expired or used up -> 1035.
 */
export async function consumeInvite(ctx: AppContext, trx: Db, code: string): Promise<void> {
  const now = ctx.clock.now();
  const result = await trx
    .updateTable('invites')
    .set((eb) => ({ uses: eb('uses', '+', 1), updated_at: now }))
    .where('code_hash', '=', ctx.secrets.hash(code))
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .where((eb) => eb.or([eb('max_uses', 'is', null), eb('uses', '<', eb.ref('max_uses'))]))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new ApiError(1035);
}

/**
 * Replaces the codes migration 0014 carried over in clear with their keyed hash and ciphertext (it could not: the
 * keys come from the SECRET). Runs at start-up, after the migrations; does nothing once every code is sealed.
 */
export async function sealLegacyInviteCodes(db: Db, secrets: Secrets): Promise<number> {
  const rows = await db
    .selectFrom('invites')
    .select(['id', 'code_hash'])
    .where('code_hash', 'like', `${CLEAR_PREFIX}%`)
    .execute();
  for (const row of rows) {
    const code = row.code_hash.slice(CLEAR_PREFIX.length);
    await db
      .updateTable('invites')
      .set({ code_hash: secrets.hash(code), code_enc: secrets.encrypt(code) })
      .where('id', '=', row.id)
      .where('code_hash', '=', row.code_hash)
      .execute();
  }
  return rows.length;
}

/** An imported invite, in the import's transaction. */
export async function insertImportedInvite(db: Db, row: InviteRow): Promise<void> {
  await db.insertInto('invites').values(row).execute();
}
