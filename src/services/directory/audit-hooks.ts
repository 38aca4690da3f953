// The places where signing in through an identity provider or a directory refuses someone, or changes a role on
// their behalf. MERGE: the audit log (issue 47, items 1-2) connects here: `auditLoginFailed` writes an
// `auth.login_failed` line and `auditRoleFromGroups` a `user.update` line by "system". Until then both only log.
import type { AppContext } from '../../context.js';
import type { Role } from '../../db/schema/tables.js';

export type LoginRefusalReason =
  'not in an allowed group' | 'wrong password' | 'unknown user' | 'directory unavailable' | 'username taken';

export interface LoginRefusal {
  /** The name typed (LDAP) or the provider's name of the account (OIDC). */
  username: string;
  via: 'OIDC' | 'LDAP';
  reason: LoginRefusalReason;
  /** The Chute account, when the refused person has one. */
  userId?: string | undefined;
}

/** AUDIT: one `auth.login_failed` line per refused sign-in through OIDC groups or LDAP. */
export function auditLoginFailed(ctx: AppContext, refusal: LoginRefusal): void {
  ctx.log.warn({ event: 'auth.login_failed', ...refusal }, `sign-in through ${refusal.via} refused: ${refusal.reason}`);
}

/** AUDIT: one `user.update` line (actor "system") when a sign-in's groups change the account's role. */
export function auditRoleFromGroups(
  ctx: AppContext,
  change: { userId: string; username: string; via: 'OIDC' | 'LDAP'; from: Role; to: Role },
): void {
  ctx.log.info({ event: 'user.update', ...change }, `role of ${change.username} set by ${change.via} groups`);
}
