// Roles that come from an identity provider or a directory: reading a groups claim out of OpenID Connect claims, and
// the role an account gets from its group memberships. What is missing or malformed grants nothing, and a
// SUPERADMIN keeps the role whatever the groups say (the instance's owner is never locked out by a claim).
import type { AccountRole } from './roles.js';

/**
 * The groups a claim holds: `path` is a claim name (`groups`, or a name with dots such as `https://example.com/groups`,
 * tried whole first) or a dotted path into nested objects (`realm_access.roles`). An array of strings, or a single
 * string, is groups; `undefined` when the claim is absent; `null` when it is there but not groups (a number, an
 * object, an array holding anything but strings).
 */
export function readGroupsClaim(claims: Record<string, unknown>, path: string): string[] | null | undefined {
  if (path === '') return undefined;
  const value = Object.hasOwn(claims, path) ? claims[path] : walk(claims, path.split('.'));
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (Array.isArray(value) && value.every((g): g is string => typeof g === 'string')) return value;
  return null;
}

function walk(value: unknown, segments: string[]): unknown {
  let current = value;
  for (const segment of segments) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** Whether any of `groups` is one of `wanted` (exact strings: group names are compared as the provider spells them). */
export function inAnyGroup(groups: readonly string[] | null | undefined, wanted: readonly string[]): boolean {
  if (!groups) return false;
  return groups.some((g) => wanted.includes(g));
}

/**
 * The role an account has after a sign-in that says whether it is in the admin group: a SUPERADMIN stays one, a
 * member becomes ADMIN, an ADMIN who is no longer a member becomes USER, a USER stays USER.
 */
export function roleFromAdminGroup(current: AccountRole, isAdminMember: boolean): AccountRole {
  if (current === 'SUPERADMIN') return current;
  return isAdminMember ? 'ADMIN' : 'USER';
}
