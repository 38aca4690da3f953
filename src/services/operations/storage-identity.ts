// Do the instances of one database share one storage? Chunked uploads (and everything else) need them to: a file
// stored by one instance must be readable by all. The first instance puts a marker object into its storage and keeps
// its id in the database; every instance looks for that marker at start. An instance whose storage lacks it (each
// instance its own UPLOADS_DIR, another bucket or prefix) says so in its log and in `chute doctor`, and its chunked
// uploads then answer an error that names the cause instead of failing later on a missing chunk.
import { Readable } from 'node:stream';
import type { Db } from '../../db/schema/tables.js';
import { randomString } from '../../lib/security/ids.js';
import type { Datasource } from '../../storage/datasource.js';

const MARKER_NAME = 'storage-marker';
const MARKER_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** The storage key of the marker object with id `id`. */
export function storageMarkerKey(id: string): string {
  return `.chute-storage/${id}`;
}

export interface StorageIdentity {
  /** The marker id the database records. */
  marker: string;
  /** Whether this instance's storage holds that marker (false: it is not the storage the other instances use). */
  shared: boolean;
}

/**
 * Finds (or, for the first instance, places) the database's storage marker and checks that this storage has it.
 * Safe when several instances start at once: one marker wins in the database, the others remove their own object.
 */
export async function checkStorageIdentity(db: Db, storage: Datasource): Promise<StorageIdentity> {
  let recorded = await readMarker(db);
  if (recorded === undefined) {
    const mine = randomString(20, MARKER_ALPHABET);
    await storage.put(storageMarkerKey(mine), Readable.from([Buffer.from(mine)]), { contentType: 'text/plain' });
    await db
      .insertInto('server_values')
      .values({ name: MARKER_NAME, value: mine })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    recorded = (await readMarker(db))!;
    if (recorded !== mine) await storage.delete(storageMarkerKey(mine));
  }
  const found = await storage.stat(storageMarkerKey(recorded));
  return { marker: recorded, shared: found !== null };
}

async function readMarker(db: Db): Promise<string | undefined> {
  const row = await db.selectFrom('server_values').select('value').where('name', '=', MARKER_NAME).executeTakeFirst();
  return row?.value;
}

/** What an instance whose storage lacks the marker logs and `chute doctor` prints. */
export function unsharedStorageMessage(storage: Datasource, marker: string): string {
  const where = storage.kind === 's3' ? 'bucket (S3_BUCKET, S3_PREFIX)' : 'uploads folder (UPLOADS_DIR)';
  return (
    `this instance's ${where} is not the storage the other instances of this database use: it lacks their marker ` +
    `${storageMarkerKey(marker)}. Files stored by the others cannot be served here and chunked uploads cannot move ` +
    `between instances; give every instance the same storage`
  );
}
