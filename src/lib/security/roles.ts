// The account hierarchy: which role may act on the accounts (and so the files) of which other role.

export type AccountRole = 'USER' | 'ADMIN' | 'SUPERADMIN';

/**
 * Whether an account of role `actor` may manage another account of role `target`: a SUPERADMIN manages USERs and
 * ADMINs (not another SUPERADMIN), an ADMIN manages USERs, a USER nobody. Acting on oneself is a separate rule.
 */
export function managesRole(actor: AccountRole, target: AccountRole): boolean {
  if (actor === 'SUPERADMIN') return target !== 'SUPERADMIN';
  if (actor === 'ADMIN') return target === 'USER';
  return false;
}
