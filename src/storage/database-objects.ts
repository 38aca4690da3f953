// The bytes of small uploads, kept in the database next to their records (table database_objects, migration 0033).
// A file stored as a file costs an upload three durable steps one after another: the file's fsync, the rename and its
// folder's fsync, then the record's commit. An upload whose whole request is at most UPLOADS_INLINE_MAX bytes keeps
// its bytes in memory instead and writes them in the record's own transaction: one commit makes bytes and record
// durable together (group commit shares it among concurrent uploads), and a failure leaves neither behind, with no
// pending mark needed (bench/RESULTS.md, 2026-11-29: a 4 KiB upload's record with its bytes ran at 1.8x the rate of
// the bare sink's file alone).
//
// Such objects have keys of their own (DATABASE_KEY_PREFIX, which no datasource key starts with: Chute's own keys are
// time-ordered ids, imported ones file names); withDatabaseObjects() answers get/stat/delete for them from the table
// and hands every other key to the datasource, so that serving, thumbnails, zips and exports work on both alike.
// Deleting a file's record deletes its bytes here in the same transaction (a trigger, migration 0033). Only the upload's
// transaction (insertDatabaseObject), the import and `chute storage inline` (storeDatabaseObjects) write them; put()
// with such a key is refused.
import { Readable } from 'node:stream';
import { precompiledWrite } from '../db/precompiled.js';
import type { Db, Millis } from '../db/schema/tables.js';
import { newTimeOrderedId } from '../lib/security/ids.js';
import { StorageNotFoundError, type ByteRange, type Datasource, type ObjectInfo } from './datasource.js';
import { assertValidRange, unsatisfiableRange } from './keys.js';

/** The first segment of the keys of objects kept in the database. */
export const DATABASE_KEY_PREFIX = '.chute-db/';

/**
 * Whether `key` names an object kept in the database: the prefix and an id, nothing more (a thumbnail's key adds to
 * its file's key, services/media/thumbnails.ts, and is the datasource's like any other).
 */
export function isDatabaseKey(key: string): boolean {
  return DATABASE_KEY.test(key);
}

const DATABASE_KEY = /^\.chute-db\/[a-z0-9]+$/;

/** A fresh key for bytes kept in the database: time-ordered, like the datasource keys of uploads. */
export function newDatabaseKey(now?: number): string {
  return DATABASE_KEY_PREFIX + newTimeOrderedId(now);
}

interface DatabaseObjectRow extends Record<string, unknown> {
  storage_key: string;
  bytes: Buffer;
  created_at: Millis;
}

/** Stores an object's bytes in the caller's transaction (the one that records its file): compiled once per engine. */
export const insertDatabaseObject = precompiledWrite<DatabaseObjectRow>(
  ['storage_key', 'bytes', 'created_at'],
  (db, row) => db.insertInto('database_objects').values(row),
);

/**
 * Stores the bytes of imported files (an instance export of Chute's carries them) or of files moved into the database
 * (chute storage inline --in), in the caller's transaction, replacing any under the same key.
 */
export async function storeDatabaseObjects(db: Db, objects: DatabaseObjectRow[]): Promise<void> {
  await db
    .insertInto('database_objects')
    .values(objects)
    .onConflict((oc) => oc.column('storage_key').doUpdateSet((eb) => ({ bytes: eb.ref('excluded.bytes') })))
    .execute();
}

/** Removes the bytes of files moved out of the database (chute storage inline --out), in the transaction that does. */
export async function deleteDatabaseObjects(db: Db, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await db.deleteFrom('database_objects').where('storage_key', 'in', keys).execute();
}

/** `storage` with the objects kept in the database answered from there. */
export function withDatabaseObjects(storage: Datasource, db: Db): Datasource {
  return new DatabaseObjects(storage, db);
}

class DatabaseObjects implements Datasource {
  constructor(
    private readonly inner: Datasource,
    private readonly db: Db,
  ) {}

  get kind(): Datasource['kind'] {
    return this.inner.kind;
  }

  get tempDirs(): readonly string[] {
    return this.inner.tempDirs;
  }

  put(...args: Parameters<Datasource['put']>): ReturnType<Datasource['put']> {
    if (isDatabaseKey(args[0])) {
      return Promise.reject(new TypeError(`${args[0]} is written with its record, not by put()`));
    }
    return this.inner.put(...args);
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    if (!isDatabaseKey(key)) return this.inner.get(key, range);
    if (range) assertValidRange(range);
    const bytes = await this.bytesOf(key);
    if (bytes === undefined) throw new StorageNotFoundError(key);
    let part = bytes;
    if (range) {
      if (range.start >= bytes.length) throw unsatisfiableRange(key, range, bytes.length);
      part = bytes.subarray(range.start, Math.min(range.end, bytes.length - 1) + 1);
    }
    return Readable.from(part.length > 0 ? [part] : [], { objectMode: false });
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    if (!isDatabaseKey(key)) return this.inner.stat(key);
    const bytes = await this.bytesOf(key);
    return bytes === undefined ? null : { size: bytes.length };
  }

  async delete(key: string): Promise<void> {
    if (!isDatabaseKey(key)) return this.inner.delete(key);
    // Deleting the record deleted the bytes already (a trigger, migration 0033): look first, a read, and write only
    // when they are still there, so that the removal of many deleted files' bytes does not commit once per key.
    const there = await this.db
      .selectFrom('database_objects')
      .select('storage_key')
      .where('storage_key', '=', key)
      .executeTakeFirst();
    if (there) await this.db.deleteFrom('database_objects').where('storage_key', '=', key).execute();
  }

  beginAppend(...args: Parameters<Datasource['beginAppend']>): ReturnType<Datasource['beginAppend']> {
    return this.inner.beginAppend(...args);
  }

  append(...args: Parameters<Datasource['append']>): ReturnType<Datasource['append']> {
    return this.inner.append(...args);
  }

  completeAppend(...args: Parameters<Datasource['completeAppend']>): ReturnType<Datasource['completeAppend']> {
    return this.inner.completeAppend(...args);
  }

  abortAppend(...args: Parameters<Datasource['abortAppend']>): ReturnType<Datasource['abortAppend']> {
    return this.inner.abortAppend(...args);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async bytesOf(key: string): Promise<Buffer | undefined> {
    const row = await this.db
      .selectFrom('database_objects')
      .select('bytes')
      .where('storage_key', '=', key)
      .executeTakeFirst();
    return row === undefined ? undefined : Buffer.from(row.bytes);
  }
}
