// The names a file is served under (/u, /raw, /view): its name, and, when its upload was handed a link without the
// extension, its extensionless name (files.extensionless_name, migration 0036: abc for abc.png). Each such name means
// one file: a name is free only when no other file has it as either. Reads only; records.ts writes.
import type { Db } from '../../db/schema/tables.js';
import type { FileNameFormat } from '../../lib/text/file-names.js';

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

/**
 * Whether a new file's names need servedNamesTaken before its insert. A file handed a link without the extension
 * does; so does one whose name someone could know in advance (an explicit x-service-filename, the date or the
 * original name as format), since another file's extensionless name may be that very name; and one without an
 * extension, which a random extensionless name (no dot either) could meet by chance. A name drawn from the CSPRNG
 * (random, uuid, random-words) with its extension can meet only an extensionless name that has a dot, which only an
 * explicit or original name gives, and nobody can pick that in advance to match a random name. So the small uploads
 * of the default format skip the query, which on SQLite would lengthen every upload's turn at the write lock.
 */
export function namesNeedCrossCheck(
  options: { fileName: string | null; format: FileNameFormat },
  name: string,
  extensionlessName: string | null,
): boolean {
  return (
    extensionlessName !== null ||
    options.fileName !== null ||
    options.format === 'date' ||
    options.format === 'name' ||
    !name.includes('.')
  );
}
