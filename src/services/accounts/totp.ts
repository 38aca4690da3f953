// TOTP as a second step of the password login: turning it on (a new secret, its otpauth:// URI and QR code, confirmed
// with a code), turning it off, and checking a code at login. The secret is encrypted at rest; a code is accepted
// once (the last accepted time step is kept in the database, so a code cannot be replayed on another instance
// either). Recovery codes: ten single-use codes shown once when TOTP is turned on, stored as keyed hashes, accepted
// in place of a code.
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { AppContext } from '../../context.js';
import type { Db, UserRow } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import { newId, randomString } from '../../lib/security/ids.js';
import { claimTotpStep, setUserColumns, turnTotpOn } from './user-records.js';

const DIGITS = 6;
const PERIOD_SECONDS = 30;
/** Codes of the previous and next 30 s step are accepted too (clocks drift, people type slowly). */
const WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
/** No 0/o, 1/l/i: a code is read off paper. 10 of 31 letters: about 50 bits. */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const RECOVERY_CODE_LENGTH = 10;

/** A TOTP code as typed: six digits, spaces allowed. Anything else given as a code is tried as a recovery code. */
const TOTP_CODE_RE = /^\d{6}$/;

export interface TotpSetup {
  /** Base32, as typed into an authenticator app by hand. */
  secret: string;
  /** otpauth://totp/... as the QR code carries it. */
  uri: string;
  /** The URI as a QR code, a PNG data URL. */
  qrcode: string;
}

function assertTotpAllowed(ctx: AppContext): void {
  if (!ctx.settings.get().mfaTotpEnabled) throw new ApiError(1054);
}

function totpFor(ctx: AppContext, username: string, secretBase32: string): TOTP {
  return new TOTP({
    issuer: ctx.settings.get().siteTitle,
    label: username,
    secret: Secret.fromBase32(secretBase32),
    digits: DIGITS,
    period: PERIOD_SECONDS,
    algorithm: 'SHA1',
  });
}

/** The time step a code belongs to, or null when it is not a valid code for the secret now. */
function matchingStep(ctx: AppContext, totp: TOTP, code: string): number | null {
  const now = ctx.clock.now();
  const delta = totp.validate({ token: code, timestamp: now, window: WINDOW });
  if (delta === null) return null;
  return Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
}

/** GET /api/user/mfa/totp: a fresh secret to scan, while TOTP is off (on -> 1069). Nothing is stored yet. */
export async function newTotpSetup(ctx: AppContext, user: UserRow): Promise<TotpSetup> {
  assertTotpAllowed(ctx);
  if (user.totp_secret !== null) throw new ApiError(1069);
  const secret = new Secret({ size: 20 }).base32;
  const uri = totpFor(ctx, user.username, secret).toString();
  return { secret, uri, qrcode: await QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 256 }) };
}

/**
 * POST /api/user/mfa/totp: turns TOTP on with the secret the user scanned, once a code made from it checks out
 * (1045 otherwise); returns the recovery codes, in clear this one time.
 */
export async function enableTotp(
  ctx: AppContext,
  user: UserRow,
  input: { secret: string; code: string },
): Promise<{ user: UserRow; recoveryCodes: string[] }> {
  assertTotpAllowed(ctx);
  if (user.totp_secret !== null) throw new ApiError(1069);
  const secret = input.secret.replace(/\s+/g, '').toUpperCase();
  const step = matchingStep(ctx, totpFor(ctx, user.username, secret), normalizeCode(input.code));
  if (step === null) throw new ApiError(1045);
  const changes = { totp_secret: ctx.secrets.encrypt(secret), totp_last_step: step, updated_at: ctx.clock.now() };
  const recoveryCodes = await ctx.db.transaction().execute(async (trx) => {
    // Conditional: of two concurrent confirmations, one turns TOTP on and the other answers 1069.
    if (!(await turnTotpOn(trx, user.id, changes))) throw new ApiError(1069);
    return replaceRecoveryCodes(ctx, trx, user.id);
  });
  return { user: { ...user, ...changes }, recoveryCodes };
}

/** DELETE /api/user/mfa/totp: turns TOTP off with a current code or a recovery code (1053 when it is not on). */
export async function disableTotp(ctx: AppContext, user: UserRow, code: string): Promise<UserRow> {
  assertTotpAllowed(ctx);
  if (user.totp_secret === null) throw new ApiError(1053);
  if (!(await acceptSecondFactorCode(ctx, user, code))) throw new ApiError(1045);
  const changes = { totp_secret: null, totp_last_step: null, updated_at: ctx.clock.now() };
  await ctx.db.transaction().execute(async (trx) => {
    await setUserColumns(trx, user.id, changes);
    await trx.deleteFrom('recovery_codes').where('user_id', '=', user.id).execute();
  });
  return { ...user, ...changes };
}

/** POST /api/user/mfa/totp/recovery: new recovery codes (the old ones stop working), confirmed with a code. */
export async function regenerateRecoveryCodes(ctx: AppContext, user: UserRow, code: string): Promise<string[]> {
  assertTotpAllowed(ctx);
  if (user.totp_secret === null) throw new ApiError(1053);
  if (!(await acceptSecondFactorCode(ctx, user, code))) throw new ApiError(1045);
  return ctx.db.transaction().execute((trx) => replaceRecoveryCodes(ctx, trx, user.id));
}

/** How many unused recovery codes the user has left. */
export async function countRecoveryCodes(ctx: AppContext, userId: string): Promise<number> {
  const row = await ctx.db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Checks and uses up a code of a user with TOTP: six digits are a TOTP code, accepted only for a time step later
 * than the last one accepted (so never twice); anything else is a recovery code, deleted as it is accepted.
 */
export async function acceptSecondFactorCode(ctx: AppContext, user: UserRow, code: string): Promise<boolean> {
  if (user.totp_secret === null) return false;
  const typed = normalizeCode(code);
  if (TOTP_CODE_RE.test(typed)) {
    const step = matchingStep(ctx, totpFor(ctx, user.username, ctx.secrets.decrypt(user.totp_secret)), typed);
    if (step === null) return false;
    // The step moves forward in one conditional update, so of two requests with the same code only one wins.
    return claimTotpStep(ctx.db, user.id, step);
  }
  const recovery = normalizeRecoveryCode(typed);
  if (recovery.length !== RECOVERY_CODE_LENGTH) return false;
  const used = await ctx.db
    .deleteFrom('recovery_codes')
    .where('user_id', '=', user.id)
    .where('code_hash', '=', ctx.secrets.hash(`recovery:${recovery}`))
    .executeTakeFirst();
  return Number(used.numDeletedRows) === 1;
}

async function replaceRecoveryCodes(ctx: AppContext, db: Db, userId: string): Promise<string[]> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  const now = ctx.clock.now();
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () =>
    randomString(RECOVERY_CODE_LENGTH, RECOVERY_ALPHABET),
  );
  await db
    .insertInto('recovery_codes')
    .values(
      codes.map((code) => ({
        id: newId(),
        user_id: userId,
        code_hash: ctx.secrets.hash(`recovery:${code}`),
        created_at: now,
      })),
    )
    .execute();
  return codes.map((c) => `${c.slice(0, 5)}-${c.slice(5)}`);
}

function normalizeCode(code: string): string {
  return code.replace(/\s+/g, '');
}

/** A recovery code as typed: any case, with or without its dash. */
function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[^a-z0-9]/g, '');
}
