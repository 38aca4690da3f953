// The server's role rules (src/services/accounts/users.ts), mirrored so that the page only offers what will be allowed:
// an ADMIN manages USERs, a SUPERADMIN also ADMINs; only a SUPERADMIN grants ADMIN or SUPERADMIN; everyone may edit
// themselves, nobody deletes themselves, and SUPERADMINs are managed by nobody else.
import { Badge } from '@mantine/core';
import type { Role, User } from '../../api/types';

export const ROLE_LABELS: Record<Role, string> = {
  USER: 'User',
  ADMIN: 'Administrator',
  SUPERADMIN: 'Super administrator',
};

const ROLE_COLORS: Record<Role, string> = { USER: 'gray', ADMIN: 'blue', SUPERADMIN: 'grape' };

export function RoleBadge({ role }: { role: Role }) {
  return (
    <Badge color={ROLE_COLORS[role]} variant="light" radius="sm">
      {ROLE_LABELS[role]}
    </Badge>
  );
}

type Actor = Pick<User, 'id' | 'role'>;

/** Whether `actor` may edit `target` at all. */
export function canEdit(actor: Actor, target: Pick<User, 'id' | 'role'>): boolean {
  if (actor.id === target.id) return true;
  if (actor.role === 'SUPERADMIN') return target.role !== 'SUPERADMIN';
  if (actor.role === 'ADMIN') return target.role === 'USER';
  return false;
}

/** Why the actor may not delete `target`, or null when they may. */
export function cannotDeleteReason(actor: Actor, target: Pick<User, 'id' | 'role'>): string | null {
  if (actor.id === target.id) return 'You cannot delete your own account';
  if (target.role === 'SUPERADMIN') return 'Super administrators cannot be deleted';
  if (!canEdit(actor, target)) return 'Only a super administrator can delete administrators';
  return null;
}

/** Why the actor may not edit `target`, or null when they may. */
export function cannotEditReason(actor: Actor, target: Pick<User, 'id' | 'role'>): string | null {
  if (canEdit(actor, target)) return null;
  return target.role === 'SUPERADMIN'
    ? 'Only this super administrator can change their account'
    : 'Only a super administrator can change administrators';
}

/** The roles `actor` may give (the target's current role is always shown, even when the actor could not grant it). */
export function grantableRoles(actor: Actor): Role[] {
  return actor.role === 'SUPERADMIN' ? ['USER', 'ADMIN', 'SUPERADMIN'] : ['USER'];
}

/** Whether the actor may change `target`'s quota (their own only as a SUPERADMIN). */
export function canEditQuota(actor: Actor, target: Pick<User, 'id'>): boolean {
  return actor.id !== target.id || actor.role === 'SUPERADMIN';
}
