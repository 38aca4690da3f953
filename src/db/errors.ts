// Recognises engine errors that services turn into API errors, the same way on SQLite and PostgreSQL.

/** True when err is a unique-constraint violation (optionally on a constraint/column whose name contains `hint`). */
export function isUniqueViolation(err: unknown, hint?: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; message?: unknown; constraint?: unknown; detail?: unknown };
  const unique =
    e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
  if (!unique) return false;
  if (!hint) return true;
  const where = `${String(e.constraint ?? '')} ${String(e.detail ?? '')} ${String(e.message ?? '')}`;
  return where.includes(hint);
}
