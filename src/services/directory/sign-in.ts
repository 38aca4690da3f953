// The sign-in form's name and password when an LDAP directory is configured (LDAP_URL): an account of this server
// (one with no directory entry) signs in with its own password, as without LDAP, and never through the directory;
// any other name is asked of the directory, and its first sign-in creates the account (a USER, or an ADMIN in
// LDAP_ADMIN_GROUP), linked to the directory entry by its stable id. The account's second step (TOTP, passkey)
// still applies, and its role follows LDAP_ADMIN_GROUP at each sign-in. A directory that is down stops only the
// directory's people: 503 with a sentence that says so.
import type { AppContext } from '../../context.js';
import type { Role, UserRow } from '../../db/schema/tables.js';
import { isUniqueViolation } from '../../db/errors.js';
import { ApiError, isApiError } from '../../lib/errors.js';
import { roleFromAdminGroup } from '../../lib/security/group-roles.js';
import {
  checkSecondStep,
  findUserById,
  findUserByName,
  insertUser,
  loginWithPassword,
  type PasswordLoginInput,
  type PasswordLoginResult,
} from '../accounts/account.js';
import type { RelyingParty } from '../accounts/passkeys.js';
import { signIn, type SessionOrigin, type SignedIn } from '../accounts/sessions.js';
import { setUserColumns } from '../accounts/user-records.js';
import { auditLoginFailed, auditRoleFromGroups } from './audit-hooks.js';
import { authenticate, directoryOf, DirectoryUnavailable, type Directory, type DirectoryPerson } from './ldap.js';
import {
  findLdapAccountByEntry,
  findLdapAccountOfUser,
  insertLdapAccount,
  updateLdapAccountDn,
} from './ldap-accounts.js';

/** What a client reads when the directory cannot be asked. */
export const DIRECTORY_DOWN =
  'the LDAP directory cannot be reached, so accounts from it cannot sign in now (accounts of this server still can); ' +
  'try again later';

/** loginWithPasswordOrDirectory(), signing the user in once no second step is missing. */
export async function signInWithPasswordOrDirectory(
  ctx: AppContext,
  input: PasswordLoginInput,
  rp: RelyingParty,
  origin: SessionOrigin,
): Promise<({ kind: 'signed-in' } & SignedIn) | { kind: 'totp-required'; passkey: boolean }> {
  const result = await loginWithPasswordOrDirectory(ctx, input, rp);
  if (result.kind === 'totp-required') return result;
  return { kind: 'signed-in', ...(await signIn(ctx, result.user, origin)) };
}

/**
 * loginWithPassword() for accounts of this server; the directory for the others. 1044 for a wrong name or password
 * either way; 9001 for a person outside LDAP_ALLOWED_GROUP; 6010 when the first sign-in's name is another
 * account's; 9004 (503) when the directory cannot be asked.
 */
export async function loginWithPasswordOrDirectory(
  ctx: AppContext,
  input: PasswordLoginInput,
  rp: RelyingParty,
): Promise<PasswordLoginResult> {
  const dir = directoryOf(ctx.config);
  if (!dir) return loginWithPassword(ctx, input, rp);
  const named = await findUserByName(ctx.db, input.username);
  if (named && !(await findLdapAccountOfUser(ctx.db, named.id))) return loginWithPassword(ctx, input, rp);

  const person = await askDirectory(ctx, dir, input, named);
  if (!person.inAllowedGroup) {
    auditLoginFailed(ctx, {
      username: input.username,
      via: 'LDAP',
      reason: 'not in an allowed group',
      userId: named?.id,
    });
    throw new ApiError(9001, 'you are not in the directory group that may sign in to this server (LDAP_ALLOWED_GROUP)');
  }
  const user = await accountOf(ctx, person, input.username, named);
  const result = await checkSecondStep(ctx, user, input, rp);
  if (result.kind !== 'ok') return result;
  return { kind: 'ok', user: await applyDirectoryRole(ctx, result.user, person) };
}

async function askDirectory(
  ctx: AppContext,
  dir: Directory,
  input: PasswordLoginInput,
  named: UserRow | undefined,
): Promise<DirectoryPerson> {
  let person: DirectoryPerson | null;
  try {
    person = await authenticate(dir, input.username, input.password);
  } catch (err) {
    if (!(err instanceof DirectoryUnavailable)) throw err;
    ctx.log.error({ err }, 'LDAP sign-in: the directory cannot be asked');
    auditLoginFailed(ctx, {
      username: input.username,
      via: 'LDAP',
      reason: 'directory unavailable',
      userId: named?.id,
    });
    throw new ApiError(9004, DIRECTORY_DOWN, { status: 503, cause: err });
  }
  if (!person) {
    const reason = named ? 'wrong password' : 'unknown user';
    auditLoginFailed(ctx, { username: input.username, via: 'LDAP', reason, userId: named?.id });
    throw new ApiError(1044);
  }
  return person;
}

/** The account of the directory entry: the linked one, or one made now under the typed name. */
async function accountOf(
  ctx: AppContext,
  person: DirectoryPerson,
  typedName: string,
  named: UserRow | undefined,
): Promise<UserRow> {
  const link = await findLdapAccountByEntry(ctx.db, person.entryId);
  if (link) {
    const user = await findUserById(ctx.db, link.user_id);
    if (!user) throw new ApiError(1044, 'the account of this directory entry was deleted');
    if (link.dn !== person.dn) await updateLdapAccountDn(ctx.db, user.id, person.dn, ctx.clock.now());
    return user;
  }
  if (named) {
    // The name is an account of another directory entry: never hand it over.
    auditLoginFailed(ctx, { username: typedName, via: 'LDAP', reason: 'username taken', userId: named.id });
    throw new ApiError(6010, 'the name belongs to the account of another directory entry');
  }
  return createAccount(ctx, person, typedName);
}

async function createAccount(ctx: AppContext, person: DirectoryPerson, typedName: string): Promise<UserRow> {
  const role: Role = person.inAdminGroup ? 'ADMIN' : 'USER';
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const user = await insertUser(ctx, trx, { username: typedName, passwordHash: null, role }, 6010);
      const now = ctx.clock.now();
      await insertLdapAccount(trx, {
        user_id: user.id,
        entry_id: person.entryId,
        dn: person.dn,
        created_at: now,
        updated_at: now,
      });
      return user;
    });
  } catch (err) {
    if (isApiError(err, 6010)) throw err;
    if (isApiError(err, 1000)) throw new ApiError(6009, `${JSON.stringify(typedName)} cannot be a username here`);
    if (isUniqueViolation(err)) {
      // Two first sign-ins of one entry at once: the other one made the account.
      const link = await findLdapAccountByEntry(ctx.db, person.entryId);
      const user = link && (await findUserById(ctx.db, link.user_id));
      if (user) return user;
    }
    throw err;
  }
}

/** With LDAP_ADMIN_GROUP set, the role its membership gives (a SUPERADMIN keeps the role). */
async function applyDirectoryRole(ctx: AppContext, user: UserRow, person: DirectoryPerson): Promise<UserRow> {
  if (person.inAdminGroup === undefined) return user;
  const role = roleFromAdminGroup(user.role, person.inAdminGroup);
  if (role === user.role) return user;
  const updatedAt = ctx.clock.now();
  await setUserColumns(ctx.db, user.id, { role, updated_at: updatedAt });
  auditRoleFromGroups(ctx, { userId: user.id, username: user.username, via: 'LDAP', from: user.role, to: role });
  return { ...user, role, updated_at: updatedAt };
}
