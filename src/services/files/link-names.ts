// The names a file is served under (/u, /raw, /view): its name, and, when its upload was handed a link without the
// extension, its extensionless name (files.extensionless_name, migration 0036: abc for abc.png). Each such name means
// one file: a name is free only when no other file has it as either. Reads only; records.ts writes.
import type { Db } from '../../db/schema/tables.js';

/**
 * Whether any of `names` (a file's name, and its extensionless name when it gets one) already means another file than
 * `exceptFileId`: another file has it as its name or as its extensionless name. The unique indexes refuse the same
 * column twice on their own (an upload's insert then adds no row); this also catches one column against the other.
 */
export async function servedNamesTaken(
  db: Db,
  names: ReadonlyArray<string | null>,
  exceptFileId?: string,
): Promise<boolean> {
  const wanted = names.filter((n): n is string => n !== null);
  let query = db
    .selectFrom('files')
    .select('id')
    .where((eb) => eb.or([eb('name', 'in', wanted), eb('extensionless_name', 'in', wanted)]));
  if (exceptFileId !== undefined) query = query.where('id', '!=', exceptFileId);
  return (await query.limit(1).executeTakeFirst()) !== undefined;
}
