// Self-service registration: open when the admin enables it, otherwise only with an invite code.
import type { AppContext } from '../../context.js';
import type { UserRow } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import { hashPassword } from '../../lib/security/passwords.js';
import { assertNewPassword } from '../../lib/security/password-rules.js';
import { canonicalUsername } from '../../lib/text/usernames.js';
import { insertUser } from './account.js';
import { consumeInvite } from './invites.js';
import { signIn, type SessionOrigin, type SignedIn } from './sessions.js';

export interface Registration {
  username: string;
  password: string;
  /** An invite code; when given it is used (and must be valid) even while registration is open. */
  code?: string | undefined;
}

/**
 * Creates a USER. Without a code: registration off -> 1037. With a code: invites off -> 1036, a code that is unknown,
 * expired or used up -> 1035. A taken username -> 1039 (Zipline's code), and the invite keeps its use. A password
 * the rules refuse (lib/security/password-rules.ts) -> 1000, before an invite is used.
 */
export async function registerUser(ctx: AppContext, input: Registration): Promise<UserRow> {
  const settings = ctx.settings.get();
  if (input.code === undefined) {
    if (!settings.registrationEnabled) throw new ApiError(1037);
  } else if (!settings.invitesEnabled) {
    throw new ApiError(1036);
  }
  canonicalUsername(input.username);
  assertNewPassword(input.password, settings.passwordMinLength);
  // Hash before the transaction: argon2 takes tens of milliseconds and must not hold a database lock.
  const passwordHash = await hashPassword(input.password);
  return ctx.db.transaction().execute(async (trx) => {
    if (input.code !== undefined) await consumeInvite(ctx, trx, input.code);
    return insertUser(ctx, trx, { username: input.username, passwordHash, role: 'USER' }, 1039);
  });
}

/** registerUser(), the new user signed in. */
export async function registerAndSignIn(
  ctx: AppContext,
  input: Registration,
  origin: SessionOrigin,
): Promise<SignedIn> {
  return signIn(ctx, await registerUser(ctx, input), origin);
}
